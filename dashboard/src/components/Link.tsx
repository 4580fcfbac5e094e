import type { ComponentChildren } from 'preact';
import { navigate } from '../router.ts';

/** An ordinary link (keyboard, middle click, copy address) that navigates in place. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  current?: boolean;
  class?: string;
}) {
  return (
    <a
      href={props.href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(props.href);
      }}
    >
      {props.children}
    </a>
  );
}
