// The server's event stream (GET /api/live/events), one per tab, shared by
// every page. Each event carries an id; when the connection drops, the
// browser reconnects and sends the last id it saw, and the server sends
// what was missed first. When the browser gives up (the server answered
// with an error, or the session is gone) the stream is opened again here,
// with the last id in the query, so a tab never skips an event the server
// still holds. The last events are kept for the pages mounted later (and
// across a sign-in again), so that the activity a page shows outlives it.

const EVENTS = ['advance', 'landed', 'refresh', 'failure', 'recovery', 'pause', 'resume', 'hello'];
const HISTORY = 200;

export class EventFeed {
  constructor(url = '/api/live/events') {
    this.url = url;
    this.lastId = null;
    this.source = null;
    this.state = 'closed';
    this.retryMs = 1000;
    this.timer = null;
    this.target = new EventTarget();
    this.history = [];
  }

  // The events kept, oldest first: {name, data, id}.
  recent() {
    return this.history.slice();
  }

  // fn(name, data, id) for every event; returns a function that stops it.
  subscribe(fn) {
    const handler = (e) => fn(e.detail.name, e.detail.data, e.detail.id);
    this.target.addEventListener('event', handler);
    return () => this.target.removeEventListener('event', handler);
  }

  // fn(state): 'connecting', 'open', 'reconnecting', 'closed'
  onState(fn) {
    const handler = (e) => fn(e.detail);
    this.target.addEventListener('state', handler);
    fn(this.state);
    return () => this.target.removeEventListener('state', handler);
  }

  start() {
    if (this.source) return;
    this.open();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.source) this.source.close();
    this.source = null;
    this.setState('closed');
  }

  open() {
    const url = this.lastId ? `${this.url}?last_event_id=${encodeURIComponent(this.lastId)}` : this.url;
    const source = new EventSource(url);
    this.source = source;
    this.setState('connecting');
    for (const name of EVENTS) source.addEventListener(name, (e) => this.deliver(name, e));
    source.onopen = () => {
      this.retryMs = 1000;
      this.setState('open');
    };
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        this.setState('reconnecting');
        return;
      }
      // the browser gave up on this one: open another, later
      source.close();
      this.source = null;
      this.setState('reconnecting');
      this.timer = setTimeout(() => {
        this.timer = null;
        this.open();
      }, this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 15000);
    };
  }

  deliver(name, e) {
    if (e.lastEventId) this.lastId = e.lastEventId;
    let data = null;
    try {
      data = JSON.parse(e.data);
    } catch {
      data = { text: e.data };
    }
    const detail = { name, data, id: e.lastEventId };
    this.history.push(detail);
    if (this.history.length > HISTORY) this.history.shift();
    this.target.dispatchEvent(new CustomEvent('event', { detail }));
  }

  setState(state) {
    this.state = state;
    this.target.dispatchEvent(new CustomEvent('state', { detail: state }));
  }
}
