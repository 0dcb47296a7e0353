// DOM helpers of both webviews. Text goes in as text nodes, never as HTML: transcript text is untrusted.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

/**
 * A codicon (the stylesheet the page shell loads draws it). Hidden from screen readers: whatever carries an
 * icon also carries its meaning as text (a label, or an aria-label where the text is not visible).
 */
export function icon(name: string): HTMLSpanElement {
  return el('span', { class: `codicon codicon-${name}`, 'aria-hidden': 'true' });
}

/** A button whose click stays its own (a candidate row around it has a click of its own). */
export function button(label: string | ReadonlyArray<Node | string>, onClick: () => void, attrs: Record<string, string> = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, ...(typeof label === 'string' ? [label] : label));
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    onClick();
  });
  return b;
}
