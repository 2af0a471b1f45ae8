() => {
  // Installed in every document before its own scripts run (an init script), and again by the settle
  // script when missing (the first about:blank). It keeps the page's own signals where one settle
  // script can read them in the page, without a round trip per poll:
  //   changed  when the DOM last changed or input last arrived (epoch ms: same clock in iframes);
  //   requests fetch / XHR calls in flight, and response bodies the page is still reading;
  //   timers   pending short timers (<= SHORT ms) and animation-frame callbacks: work already
  //            scheduled that may still change the DOM;
  //   messages posted messages not yet delivered (MessageChannel ports created here, and
  //            window.postMessage to this window: React's scheduler and setImmediate shims work so),
  //   idle     pending requestIdleCallback callbacks, and
  //   layout   whether the page observes layout (ResizeObserver / IntersectionObserver run their
  //            callbacks in the rendering step): the settle script skips the animation frame only
  //            when none of these (nor timers, frames, requests, a URL change, a running animation)
  //            says that work is queued, and waits one task turn (`turn`) instead.
  if (window.__tb) return;
  const SHORT = 100;
  const now = () => performance.timeOrigin + performance.now();
  const tb = { changed: now(), requests: 0, timers: new Set(), frames: new Set(), messages: 0,
    idle: new Set(), layout: false, url: null,
    setTimeout: window.setTimeout.bind(window), clearTimeout: window.clearTimeout.bind(window),
    raf: window.requestAnimationFrame.bind(window), now };
  Object.defineProperty(window, "__tb", { value: tb, enumerable: false });
  // Our own task turn: a message on a private channel, posted through the original postMessage, so
  // that our waiting is never counted as the page's work (a timer would be).
  const Channel0 = window.MessageChannel, portPost0 = Channel0 && MessagePort.prototype.postMessage;
  if (Channel0) {
    const own = new Channel0(), woken = [];
    own.port1.onmessage = () => { const wake = woken.shift(); if (wake) wake(); };
    tb.turn = () => new Promise((wake) => { woken.push(wake); portPost0.call(own.port2, null); });
  }
  const touch = () => { tb.changed = now(); };
  const observe = () => new MutationObserver(touch)
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", observe);
  else observe();
  // Input counts as a change: the quiet window runs from the action, not from an older mutation.
  for (const type of ["pointerdown", "pointerup", "click", "keydown", "keyup", "input", "change", "wheel"])
    window.addEventListener(type, touch, true);

  // Runs `start`, counted as a request in flight until the promise it returns settles.
  const counted = (start) => {
    tb.requests++;
    let done = false;
    const end = () => { if (!done) { done = true; tb.requests--; touch(); } };
    try {
      const p = start();
      p.then(end, end);
      return p;
    } catch (err) { end(); throw err; }
  };
  const fetch0 = window.fetch;
  if (fetch0) window.fetch = function (...args) { return counted(() => fetch0.apply(this, args)); };
  // A response's body is read after the fetch resolves (`r.text()`, a task later): it counts as a
  // request in flight until read, and our `then` runs just before the page's own continuation.
  const body = window.Response && window.Response.prototype;
  if (body) {
    for (const name of ["text", "json", "arrayBuffer", "blob", "formData"]) {
      const read0 = body[name];
      if (typeof read0 !== "function") continue;
      body[name] = function (...args) { return counted(() => read0.apply(this, args)); };
    }
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

  const ric0 = window.requestIdleCallback, cic0 = window.cancelIdleCallback;
  if (ric0) {
    window.requestIdleCallback = function (fn, ...rest) {
      let id = 0;
      id = ric0.call(window, (d) => { tb.idle.delete(id); return fn(d); }, ...rest);
      tb.idle.add(id);
      return id;
    };
    window.cancelIdleCallback = function (id) { tb.idle.delete(id); return cic0.call(window, id); };
  }

  // Posted messages: a message posted on a port of a channel created here is pending until the
  // other port's first listener (ours, added before the page's) sees it. A message that is never
  // delivered (a port never started, one sent to a worker) keeps the count up: the settle script
  // then takes the animation frame, as it did before this signal existed.
  if (Channel0) {
    const tracked = new WeakSet(), delivered = () => { tb.messages = Math.max(0, tb.messages - 1); };
    window.MessageChannel = class MessageChannel extends Channel0 {
      constructor() {
        super();
        for (const port of [this.port1, this.port2]) {
          tracked.add(port);
          port.addEventListener("message", delivered);
        }
      }
    };
    MessagePort.prototype.postMessage = function (...args) {
      if (!tracked.has(this)) return portPost0.apply(this, args);
      tb.messages++;
      try { return portPost0.apply(this, args); } catch (err) { delivered(); throw err; }
    };
  }
  // window.postMessage to this window (the wrapper is the target window's, wherever it is called
  // from), counted until it arrives; a capturing listener added before any page script sees it first.
  const winPost0 = window.postMessage;
  window.postMessage = function (...args) {
    tb.messages++;
    try { return winPost0.apply(this, args); } catch (err) { tb.messages = Math.max(0, tb.messages - 1); throw err; }
  };
  window.addEventListener("message", () => { tb.messages = Math.max(0, tb.messages - 1); }, true);

  for (const name of ["ResizeObserver", "IntersectionObserver"]) {
    const Observer = window[name];
    if (!Observer) continue;
    const observe0 = Observer.prototype.observe;
    Observer.prototype.observe = function (...args) { tb.layout = true; return observe0.apply(this, args); };
  }
}
