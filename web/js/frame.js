// Frames, for the pages' performance marks: fn runs in the task after
// the current one, which a page posts from a frame's drawing (a
// requestAnimationFrame callback): by then the frame is handed to the
// compositor, so a mark there says when what it drew was painted.
export function afterFrame(fn) {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    fn();
  };
  channel.port2.postMessage(0);
}
