// The sign-in page: the server's token is exchanged for a session (a
// cookie the page cannot read); the token itself is kept nowhere.

import { signIn } from './api.js';
import { el, fill } from './dom.js';

export function showSignIn(root, done) {
  const input = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'current-password',
    required: true, autofocus: true });
  const message = el('p', { class: 'error', id: 'signin-error', role: 'alert' });
  const button = el('button', { type: 'submit' }, 'Sign in');
  const form = el('form', { class: 'signin', id: 'signin' },
    el('h1', {}, 'Sign in'),
    el('p', { class: 'muted' }, 'This server asks for its token (the variable its server.token_env names).'),
    el('label', { for: 'token' }, 'Token'), input, button, message);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    message.textContent = '';
    try {
      await signIn(input.value);
      input.value = '';
      done();
    } catch (err) {
      message.textContent = err.status === 401 ? 'That is not the server\'s token.' : err.message;
      button.disabled = false;
      input.select();
    }
  });
  fill(root, form);
  input.focus();
}
