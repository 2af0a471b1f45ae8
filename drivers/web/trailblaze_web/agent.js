() => {
  // Installed in every document before its own scripts run (an init script), and again by the settle
  // script when missing (the first about:blank). It keeps the page's own signals where one settle
  // script can read them in the page, without a round trip per poll:
  //   changed  when the DOM last changed or input last arrived (epoch ms: same clock in iframes);
  //   requests fetch / XHR calls in flight;
  //   timers   pending short timers (<= SHORT ms) and animation-frame callbacks: work already
  //            scheduled that may still change the DOM.
  if (window.__tb) return;
  const SHORT = 100;
  const now = () => performance.timeOrigin + performance.now();
  const tb = { changed: now(), requests: 0, timers: new Set(), frames: new Set(),
    setTimeout: window.setTimeout.bind(window), clearTimeout: window.clearTimeout.bind(window),
    raf: window.requestAnimationFrame.bind(window), now };
  Object.defineProperty(window, "__tb", { value: tb, enumerable: false });
  const touch = () => { tb.changed = now(); };
  const observe = () => new MutationObserver(touch)
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", observe);
  else observe();
  // Input counts as a change: the quiet window runs from the action, not from an older mutation.
  for (const type of ["pointerdown", "pointerup", "click", "keydown", "keyup", "input", "change", "wheel"])
    window.addEventListener(type, touch, true);

  const fetch0 = window.fetch;
  if (fetch0) {
    window.fetch = function (...args) {
      tb.requests++;
      let done = false;
      const end = () => { if (!done) { done = true; tb.requests--; touch(); } };
      try {
        const p = fetch0.apply(this, args);
        p.then(end, end);
        return p;
      } catch (err) { end(); throw err; }
    };
  }
  const XHR = window.XMLHttpRequest;
  if (XHR) {
    const send0 = XHR.prototype.send;
    XHR.prototype.send = function (...args) {
      tb.requests++;
      let done = false;
      const end = () => { if (!done) { done = true; tb.requests--; touch(); } };
      this.addEventListener("loadend", end);
      try { return send0.apply(this, args); } catch (err) { end(); throw err; }
    };
  }

  const wrapTimer = (name, repeat) => {
    const original = window[name];
    window[name] = function (fn, delay, ...rest) {
      if (typeof fn !== "function" || !((+delay || 0) <= SHORT)) return original.call(window, fn, delay, ...rest);
      let id = 0;
      id = original.call(window, function (...a) {
        if (!repeat) tb.timers.delete(id);
        return fn.apply(this, a);
      }, delay, ...rest);
      tb.timers.add(id);
      return id;
    };
  };
  wrapTimer("setTimeout", false);
  wrapTimer("setInterval", true);
  for (const name of ["clearTimeout", "clearInterval"]) {
    const original = window[name];
    window[name] = function (id) { tb.timers.delete(id); return original.call(window, id); };
  }
  const raf0 = window.requestAnimationFrame, caf0 = window.cancelAnimationFrame;
  window.requestAnimationFrame = function (fn) {
    let id = 0;
    id = raf0.call(window, (t) => { tb.frames.delete(id); return fn(t); });
    tb.frames.add(id);
    return id;
  };
  window.cancelAnimationFrame = function (id) { tb.frames.delete(id); return caf0.call(window, id); };
}
