() => {
  // One pass over the DOM: the elements a person or assistive technology sees, with role, name,
  // value, states and viewport bounds (format: trailblaze/screen/web_hierarchy.py). The walked elements are
  // kept in window.__tbNodes so a `css=` ref can be mapped to a node of this walk.
  const IMPLICIT = {
    A: (e) => (e.hasAttribute("href") ? "link" : "generic"), BUTTON: () => "button",
    SELECT: (e) => (e.multiple || e.size > 1 ? "listbox" : "combobox"), TEXTAREA: () => "textbox",
    H1: () => "heading", H2: () => "heading", H3: () => "heading", H4: () => "heading",
    H5: () => "heading", H6: () => "heading", UL: () => "list", OL: () => "list", LI: () => "listitem",
    NAV: () => "navigation", MAIN: () => "main", HEADER: () => "banner", FOOTER: () => "contentinfo",
    FORM: () => "form", IMG: () => "img", DIALOG: () => "dialog", LABEL: () => "generic",
    TABLE: () => "table", TR: () => "row", TD: () => "cell", TH: () => "columnheader",
    OPTION: () => "option", SECTION: () => "region", P: () => "paragraph", BODY: () => "document",
    IFRAME: () => "iframe",
  };
  const INPUT = { checkbox: "checkbox", radio: "radio", button: "button", submit: "button",
    reset: "button", image: "button", range: "slider", number: "spinbutton", search: "searchbox",
    email: "textbox", tel: "textbox", text: "textbox", url: "textbox", password: "textbox" };
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "BR"]);
  const CLICKABLE = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem", "option",
    "switch", "combobox", "textbox", "searchbox", "spinbutton", "slider"]);
  const role = (e) => {
    const explicit = e.getAttribute("role");
    if (explicit) return explicit.split(" ")[0];
    if (e.tagName === "INPUT") {
      const t = (e.getAttribute("type") || "text").toLowerCase();
      return t === "hidden" ? "" : INPUT[t] || "textbox";
    }
    const f = IMPLICIT[e.tagName];
    return f ? f(e) : "generic";
  };
  const ownText = (e) => {
    let s = "";
    for (const c of e.childNodes) if (c.nodeType === 3) s += c.textContent;
    return s.replace(/\s+/g, " ").trim();
  };
  const byId = (id) => (id ? document.getElementById(id) : null);
  const text = (e) => (e.innerText || e.textContent || "").replace(/\s+/g, " ").trim();
  const name = (e, r) => {
    const lb = e.getAttribute("aria-labelledby");
    if (lb) return lb.split(/\s+/).map((i) => (byId(i) ? text(byId(i)) : "")).join(" ").trim();
    const al = e.getAttribute("aria-label");
    if (al) return al.trim();
    if (e.labels && e.labels.length) return text(e.labels[0]);
    if (e.tagName === "IMG") return e.getAttribute("alt") || "";
    if (e.tagName === "INPUT" && ["button", "submit", "reset"].includes(e.type)) return e.value;
    if (["button", "link", "heading", "tab", "option", "menuitem", "cell", "columnheader"].includes(r))
      return text(e).slice(0, 200);
    if (r === "dialog") {
      const h = e.querySelector("h1,h2,h3,h4,h5,h6");
      if (h) return text(h);
    }
    // Beyond the ARIA name computation: a text element (a <label>, a <p>) is named by its own text,
    // so selectors can name it as people read it.
    return e.getAttribute("title") || e.getAttribute("placeholder") || ownText(e);
  };
  const vw = window.innerWidth, vh = window.innerHeight;
  const active = document.activeElement;
  const nodes = [];
  // (ox, oy): the offset of the element's frame in the top viewport (a same-origin iframe's content).
  const walk = (e, parentHidden, ox, oy) => {
    if (SKIP.has(e.tagName)) return null;
    const st = e.ownerDocument.defaultView.getComputedStyle(e);
    if (st.display === "none") return null;
    const r = role(e);
    if (r === "") return null;
    const hidden = parentHidden || st.visibility === "hidden" || st.opacity === "0" ||
      e.getAttribute("aria-hidden") === "true";
    const rect = e.getBoundingClientRect();
    let f = "";
    const tag = e.tagName;
    const ptr = st.cursor === "pointer";
    if (CLICKABLE.has(r) || ptr || e.onclick) f += "c";
    if (e.disabled || e.getAttribute("aria-disabled") === "true") f += "e";
    if (r === "checkbox" || r === "radio" || r === "switch") {
      f += "C";
      if (e.checked || e.getAttribute("aria-checked") === "true") f += "k";
    }
    if (e.getAttribute("aria-selected") === "true" || e.classList.contains("selected") ||
        (tag === "OPTION" && e.selected)) f += "s";
    if (e === active && e !== document.body) f += "F";
    else if (e.ownerDocument !== document && e === e.ownerDocument.activeElement &&
      e !== e.ownerDocument.body) f += "F";
    const ovy = st.overflowY, ovx = st.overflowX;
    if (((ovy === "auto" || ovy === "scroll") && e.scrollHeight > e.clientHeight + 1) ||
        ((ovx === "auto" || ovx === "scroll") && e.scrollWidth > e.clientWidth + 1) ||
        (e === document.scrollingElement && e.scrollHeight > vh + 1)) f += "S";
    if (tag === "INPUT" && e.type === "password") f += "p";
    if (hidden) f += "x";
    if ((tag === "DIALOG" && e.open && e.matches(":modal")) || e.getAttribute("aria-modal") === "true") f += "m";
    let v = "";
    if (tag === "INPUT" && !["checkbox", "radio", "button", "submit", "reset"].includes(e.type)) v = e.value;
    else if (tag === "TEXTAREA") v = e.value;
    else if (tag === "SELECT") v = e.selectedOptions.length ? e.selectedOptions[0].text : "";
    const node = { r, n: name(e, r), v, t: ownText(e), h: e.getAttribute("placeholder") || "",
      id: e.getAttribute("data-testid") || e.id || "",
      lv: r === "heading" ? (/^H[1-6]$/.test(tag) ? +tag[1] : +(e.getAttribute("aria-level") || 2)) : 0,
      b: [rect.x + ox, rect.y + oy, rect.width, rect.height], f, c: [] };
    nodes.push(e);
    for (const child of e.children) {
      const c = walk(child, hidden, ox, oy);
      if (c) node.c.push(c);
    }
    if (e.shadowRoot) for (const child of e.shadowRoot.children) {
      const c = walk(child, hidden, ox, oy);
      if (c) node.c.push(c);
    }
    if (tag === "IFRAME") {
      let inner = null;
      try { inner = e.contentDocument && e.contentDocument.body; } catch (err) { inner = null; }
      // A cross-origin frame cannot be read from here: it stays one opaque `iframe` node.
      const c = inner ? walk(inner, hidden, ox + rect.x + e.clientLeft, oy + rect.y + e.clientTop) : null;
      if (c) node.c.push(c);
    }
    return node;
  };
  const root = walk(document.body, false, 0, 0) ||
    { r: "document", n: "", v: "", t: "", h: "", id: "", b: [0, 0, vw, vh], f: "", c: [] };
  root.b = [0, 0, vw, vh];
  window.__tbNodes = nodes;
  return JSON.stringify({ web: 1, url: location.href, width: vw, height: vh,
    scale: window.devicePixelRatio || 1, root });
}
