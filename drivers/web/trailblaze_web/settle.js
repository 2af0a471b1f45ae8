async ({ quietMs, boundMs, walk }) => {
  // Waits in the page until it is idle, then (with `walk`) walks the DOM in the same round trip.
  // Idle: no fetch / XHR in flight, and either nothing changed (DOM, input) for `quietMs`, or nothing
  // changed during the last animation frame and no short timer or frame callback is pending (work
  // the page scheduled that may change it again). Signals come from agent.js in this document and
  // its same-origin frames. Resolves with `quiet: false` after `boundMs`.
  (__AGENT__)();
  const tb = window.__tb;
  const signals = () => {
    let changed = 0, requests = 0, pending = false;
    const visit = (w) => {
      try {
        const s = w.__tb;
        if (s) {
          changed = Math.max(changed, s.changed);
          requests += s.requests;
          pending = pending || s.timers.size > 0 || s.frames.size > 0;
        }
        for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
      } catch (err) { /* a cross-origin frame: its signals cannot be read from here */ }
    };
    visit(window);
    return { changed, requests, pending };
  };
  // One animation frame, then one task (so tasks the frame queued have run); 50 ms when frames stall.
  const frame = () => new Promise((resolve) => {
    const late = tb.setTimeout(resolve, 50);
    tb.raf(() => { tb.clearTimeout(late); tb.setTimeout(resolve, 0); });
  });
  const start = tb.now();
  let quiet = false, frames = 0, busy = 0;
  for (;;) {
    const begun = tb.now();
    await frame();
    frames++;
    const s = signals(), t = tb.now();
    if (s.requests === 0 && (t - s.changed >= quietMs || (s.changed < begun && !s.pending))) {
      quiet = true;
      break;
    }
    busy++;
    if (t - start >= boundMs) break;
  }
  return { quiet, frames, busy, dump: walk ? (__WALK__)() : null };
}
