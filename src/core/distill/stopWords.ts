/**
 * Function words of the languages seen in agent transcripts (English, Spanish, Portuguese, French, German,
 * Russian, Ukrainian), plus agent boilerplate. IDF already pushes common words down on a real store; this list keeps
 * small stores (and short exchanges) from choosing "the" or "что" as a concept room.
 */
const STOP_WORDS = new Set(
  `a about above after again all also am an and any are as at be been before being below between both but by can
  could did do does doing done down during each either else even ever every few for from further get got had has
  have having he her here hers him his how however i if in into is it its itself just let like make may me might
  more most much must my need no nor not now of off ok okay on once one only or other our out over own please
  same see should so some such than that the their them then there these they this those through to too try under
  until up us use used using very via want was we well were what when where which while who why will with would
  yes yet you your yours new also sure thanks thank hi hello let's i'm it's that's there's don't doesn't can't i'll
  we'll you're here's what's
  el la los las un una unos unas de del al y o u e pero que qué como cómo con sin por para en es son ser está
  están estar fue hay lo le les se su sus mi mis tu tus este esta esto estos estas ese esa eso muy más ya no sí
  también cuando donde porque pues si entonces hacer puedes puede favor gracias hola nuevo nueva
  o os as um uma uns umas do da dos das em no na nos nas ao aos à às com sem para por que é são ser está estão
  foi não sim também quando onde porque então fazer pode obrigado olá
  le la les un une des du de et ou mais que qui quoi comme avec sans pour par dans en est sont être été ce cette
  ces ça il elle ils elles je tu nous vous ne pas plus oui non aussi quand où parce alors faire peux peut merci
  bonjour
  der die das ein eine einer eines einem einen und oder aber dass wie mit ohne für von zu im in ist sind sein
  war es er sie wir ihr ich du nicht auch wenn wo weil dann machen kann bitte danke hallo
  и в во не что он она оно они на я с со как а то все всё так его её их но да ты к у же вы за бы по только ее
  мне было вот от меня еще ещё нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас
  нибудь опять уж вам ведь там потом себя ничего ей может тут где есть надо ней для мы тебя чем была сам чтоб
  без будто чего раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один
  почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над
  больше тот через эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда
  лучше чуть том нельзя такой им более всегда конечно всю между пожалуйста спасибо привет это почему какие
  і й та але або чи що щоб як коли де куди звідки чому бо тому тоді тут там зараз вже ще теж також тільки лише
  навіть ось от ну ж же б би ні так це цей ця ці цього цієї цих цьому цим цю той те ті того тієї тих тим я ти
  він вона воно ми ви вони мене тебе його її нас вас їх мені тобі йому їй нам вам їм мій моя моє мої твій твоя
  твоє твої наш наша наше наші ваш ваша ваше ваші свій своя своє свої себе собі хто нічого ніщо ніхто ніколи
  щось хтось десь колись можна треба потрібно буде був була було були бути є який яка яке які якщо якби для
  до від з із зі у на по про під над без через після перед між при за всі все всього всіх весь вся дуже
  більше менше багато мало будь ласка дякую привіт`
    .split(/\s+/)
    .filter(Boolean),
);

/** `word` lower-cased (every caller has it so already). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}
