// Webview entry point: the chat UI. For now it only renders a placeholder.

function render(): void {
  const main = document.createElement('main');
  main.setAttribute('aria-label', 'ACP chat');
  main.textContent = 'Loading…';
  document.body.replaceChildren(main);
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', render, { once: true });
} else {
  render();
}
