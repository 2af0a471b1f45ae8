async ({ quietMs, boundMs, walk }) => {
  // Waits in the page until it is idle, then (with `walk`) walks the DOM in the same round trip.
  // Idle: no fetch / XHR in flight, and either nothing changed (DOM, input) for `quietMs`, or nothing
  // changed during the last animation frame and no short timer or frame callback is pending (work
  // the page scheduled that may change it again). Signals come from agent.js in this document and
  // its same-origin frames. Resolves with `quiet: false` after `boundMs`.
  // When nothing at all is queued (below: `queued`), one task turn replaces the frame.
  (__AGENT__)();
  const tb = window.__tb;
  const signals = (lookAhead = false) => {
    let changed = 0, requests = 0, pending = false, queued = false;
    const visit = (w) => {
      try {
        const s = w.__tb;
        if (s) {
          changed = Math.max(changed, s.changed);
          requests += s.requests;
          // A posted message is pending work too (a scheduler's chain of messages can outlast a
          // frame); one never delivered costs at most the quiet window, like a silent timer.
          pending = pending || s.timers.size > 0 || s.frames.size > 0 || s.messages > 0;
          // Before skipping the frame only: work the frame would let run that the signals above
          // miss (an idle callback, a hashchange / popstate task after a URL change, a transition
          // or animation: its events and the callbacks of layout observers come with rendering).
          if (lookAhead) queued = queued || !s.turn || s.idle.size > 0 || s.layout ||
            s.url !== w.location.href ||
            w.document.getAnimations().some((a) => a.playState === "running");
        } else queued = true;
        for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
      } catch (err) { /* a cross-origin frame: its signals cannot be read from here */ }
    };
    visit(window);
    return { changed, requests, pending, queued: queued || pending || requests > 0 };
  };
  const seen = () => {
    const visit = (w) => {
      try {
        if (w.__tb) w.__tb.url = w.location.href;
        for (let i = 0; i < w.frames.length; i++) visit(w.frames[i]);
      } catch (err) { /* cross-origin */ }
    };
    visit(window);
  };
  // One animation frame, then one task (so tasks the frame queued have run); 50 ms when frames stall.
  const frame = () => new Promise((resolve) => {
    const late = tb.setTimeout(resolve, 50);
    tb.raf(() => { tb.clearTimeout(late); tb.setTimeout(resolve, 0); });
  });
  const start = tb.now();
  let quiet = false, frames = 0, busy = 0;
  if (!signals(true).queued) {
    // Nothing queued that could change the page: one task turn (tasks queued before it run first),
    // and idle when still nothing is queued and nothing changed meanwhile; else the frame path.
    await tb.turn();
    const s = signals(true);
    quiet = !s.queued && s.changed < start;
  }
  let calm = 0; // frames in a row that began after the last change
  while (!quiet) {
    const begun = tb.now();
    await frame();
    frames++;
    const s = signals(), t = tb.now();
    calm = s.changed < begun ? calm + 1 : 0;
    // The quiet window counts only once the page had two frames to run its due work: on a starved
    // machine one frame can span the window while the page's overdue timers have not run yet.
    if (s.requests === 0 && ((t - s.changed >= quietMs && calm >= 2) || (s.changed < begun && !s.pending))) {
      quiet = true;
      break;
    }
    busy++;
    if (t - start >= boundMs) break;
  }
  seen();
  return { quiet, frames, busy, dump: walk ? (__WALK__)() : null };
}
