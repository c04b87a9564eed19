// `memo` without preact/compat. Importing compat installs global option hooks that run for every vnode the view
// creates (measured during the UI benchmark's flood: about 15% of the time spent in Preact), and memo is all the
// view needs from it.
import type { Component, FunctionComponent } from 'preact';

/** A component that renders again when one of its props changed (compared with ===) or its own state did. */
export function memo<P extends object>(render: FunctionComponent<P>): FunctionComponent<P> {
  // A function component is called with its Component instance as `this`, and its hooks belong to that instance.
  // Set once, before the hooks' own shouldComponentUpdate wraps it. One function for every instance: a long chat has
  // thousands of them, and a closure each was a fifth of a megabyte.
  function Memo(this: Component<P>, props: P) {
    this.shouldComponentUpdate ??= propsChanged;
    return render.call(this, props);
  }
  Memo.displayName = `Memo(${render.displayName ?? render.name})`;
  return Memo;
}

/** Its own state updates come with the same props: those render too. */
function propsChanged(this: Component, next: Readonly<object>): boolean {
  return next === this.props || differs(this.props, next);
}

function differs(a: object, b: object): boolean {
  for (const key in a) if (!(key in b)) return true;
  for (const key in b) if ((a as Record<string, unknown>)[key] !== (b as Record<string, unknown>)[key]) return true;
  return false;
}
