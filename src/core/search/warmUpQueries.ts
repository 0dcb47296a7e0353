/**
 * What a warm-up searches for (Searcher.warm; the MCP server's, through its search tool), results unused: several
 * words and one, confident and unsure answers (the second signal and its fusion), a code name and a path, so that
 * every stage of a search has run; and a question in each script words.ts reads its own way (Cyrillic, Chinese,
 * Korean), whose first search otherwise pays for the segmenter's dictionary and for code V8 had not yet seen
 * (docs/search-log.md, "Latency passes", thirteenth pass).
 */
export const WARM_UP_QUERIES = [
  'why does the build fail after the update',
  'add a test for the parser error',
  'config',
  'rename getUserName in src/api/client.ts',
  'slow database query when the cache is cold',
  'how did we decide on the retry limit',
  'почему тесты падают после обновления зависимостей',
  '为什么更新依赖以后测试失败了',
  '의존성을 업데이트한 뒤 테스트가 실패하는 이유',
];
