import assert from 'node:assert/strict';
import { test } from 'node:test';
import { linkTarget } from '../../src/core/linkTarget';

/**
 * Issue 44 item 2: a transcript's link to 127.0.0.1 or localhost opened with one click. Every link is shown
 * before it is followed; one to this computer or the local network says so, however its host is written.
 */

test('loopback, private, link-local and local names are said to be local, however the host is written', () => {
  const cases: Array<[string, string]> = [
    ['http://127.0.0.1:8080/x', 'this computer (127.0.0.1)'],
    ['http://127.255.1.2/', 'this computer (127.255.1.2)'],
    ['http://localhost:3000/', 'this computer (localhost)'],
    ['http://LOCALHOST./', 'this computer (localhost.)'],
    ['http://app.localhost/', 'this computer (app.localhost)'],
    ['http://0.0.0.0:3000/', 'this computer (0.0.0.0)'],
    ['http://[::1]:9/', 'this computer ([::1])'],
    ['http://[::ffff:127.0.0.1]/', 'this computer ([::ffff:7f00:1])'],
    ['http://2130706433/', 'this computer (127.0.0.1)'],
    ['http://0x7f000001/', 'this computer (127.0.0.1)'],
    ['http://0177.0.0.1/', 'this computer (127.0.0.1)'],
    ['http://127.1/', 'this computer (127.0.0.1)'],
    ['http://0x7f.1/', 'this computer (127.0.0.1)'],
    ['http://10.1.2.3/', 'your local network (10.1.2.3)'],
    ['http://172.16.0.1/', 'your local network (172.16.0.1)'],
    ['http://172.31.255.1/', 'your local network (172.31.255.1)'],
    ['http://192.168.1.1/', 'your local network (192.168.1.1)'],
    ['http://3232235777/', 'your local network (192.168.1.1)'],
    ['http://169.254.169.254/latest/meta-data', 'your local network (169.254.169.254)'],
    ['http://[fe80::1]/', 'your local network ([fe80::1])'],
    ['http://[fd00::5]/', 'your local network ([fd00::5])'],
    ['http://[::ffff:c0a8:101]/', 'your local network ([::ffff:c0a8:101])'],
    ['http://router/', 'your local network (router)'],
    ['http://printer.local/', 'your local network (printer.local)'],
  ];
  for (const [href, local] of cases) assert.equal(linkTarget(href)?.local, local, href);
});

test('a public host is not local; the URL shown is the one that opens, with how the transcript wrote it when that differs', () => {
  for (const href of ['https://example.com/a?b=c', 'http://172.32.0.1/', 'http://11.0.0.1/', 'http://[2001:db8::1]/', 'https://8.8.8.8/']) {
    assert.equal(linkTarget(href)?.local, undefined, href);
  }
  assert.deepEqual(linkTarget('https://example.com/a'), { url: 'https://example.com/a' });
  assert.deepEqual(linkTarget('http://0x7f000001:9/p'), { url: 'http://127.0.0.1:9/p', written: 'http://0x7f000001:9/p', local: 'this computer (127.0.0.1)' });
  assert.deepEqual(linkTarget('https://bücher.example/'), { url: 'https://xn--bcher-kva.example/', written: 'https://bücher.example/' });
});

test('only http(s) links with a host have a target: every other scheme stays text', () => {
  for (const href of ['command:workbench.action.terminal.new', 'vscode://vscode.git/clone?url=x', 'file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x', 'ftp://x.org/', 'mailto:a@b.c', '//evil.example/x', 'hello.py', 'https://exa\u202Emple.com/']) {
    assert.equal(linkTarget(href), undefined, href);
  }
});
