// viewer.js: draws the craftrdf article viewer from the JSON the page carries inline
// (<script id="viewer-data">, the same data as /api/doc/<pmid>; see docs/viewer.md).
// Plain browser JavaScript, no build step, no network. Text from the data is only ever
// written with textContent / createTextNode, never parsed as HTML.
"use strict";

(function () {
  const data = JSON.parse(document.getElementById("viewer-data").textContent);
  const textEl = document.getElementById("text");
  const legendEl = document.getElementById("legend");
  const statusEl = document.getElementById("status");
  const tip = document.getElementById("tip");
  const anns = data.annotations;
  // offsets count Unicode code points (as the corpus does); JS strings count UTF-16 units
  const chars = Array.from(data.text);
  const sets = new Map(data.sets.map((s) => [s.key, s]));

  const params = new URLSearchParams(window.location.search);
  const requested = params.get("sets");
  const state = {
    sets: new Set(requested !== null
      ? requested.split(",").filter((k) => sets.has(k))
      : data.sets.filter((s) => s.default).map((s) => s.key)),
    proper: params.get("proper") !== "0",
    extension: params.get("extension") !== "0",
    outermost: params.get("outermost") !== "0",
    nested: params.get("nested") !== "0",
  };

  for (const a of anns) {
    const pieces = a.spans.filter(([s, e]) => e > s);
    a.pieces = pieces;
    a.begin = pieces.length ? Math.min(...pieces.map((p) => p[0])) : 0;
    a.end = pieces.length ? Math.max(...pieces.map((p) => p[1])) : 0;
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k === "text") node.textContent = v;
      else if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else node[k] = v;
    }
    for (const c of children) node.append(c);
    return node;
  }

  function classHref(curie) {
    return "../class/" + encodeURIComponent(curie).replace(/%3A/gi, ":");
  }

  // nested = inside an annotation of a set that is shown (the views' definition, craftrdf.views)
  function isNested(a) {
    return a.within.some((j) => state.sets.has(anns[j].set));
  }

  function isVisible(a) {
    if (!state.sets.has(a.set) || a.pieces.length === 0) return false;
    if (!(a.extension ? state.extension : state.proper)) return false;
    return isNested(a) ? state.nested : state.outermost;
  }

  // outer annotations wrap inner ones: longer extent first, then more pieces covered, then order
  function outerFirst(i, j) {
    const a = anns[i], b = anns[j];
    return (b.end - b.begin) - (a.end - a.begin) || i - j;
  }

  function render() {
    const shown = [];
    anns.forEach((a, i) => { if (isVisible(a)) shown.push(i); });
    const starts = new Map(), ends = new Map(), cuts = new Set([0, chars.length]);
    const push = (m, k, v) => { if (!m.has(k)) m.set(k, []); m.get(k).push(v); };
    for (const i of shown) {
      for (const [s, e] of anns[i].pieces) {
        push(starts, s, i); push(ends, e, i); cuts.add(s); cuts.add(e);
      }
    }
    const positions = [...cuts].sort((x, y) => x - y);
    const active = new Map();  // annotation -> pieces open here (CRAFT has overlapping pieces)
    const frag = document.createDocumentFragment();
    for (let k = 0; k + 1 < positions.length; k++) {
      const p = positions[k], q = positions[k + 1];
      for (const i of ends.get(p) || []) {
        const n = active.get(i) - 1;
        if (n) active.set(i, n); else active.delete(i);
      }
      for (const i of starts.get(p) || []) active.set(i, (active.get(i) || 0) + 1);
      const piece = document.createTextNode(chars.slice(p, q).join(""));
      if (active.size === 0) { frag.append(piece); continue; }
      const stack = [...active.keys()].sort(outerFirst);
      let parent = frag;
      stack.forEach((i, depth) => {
        const a = anns[i];
        const mark = el("mark", {
          class: "ann" + (a.extension ? " ext" : "") + (a.pieces.length > 1 ? " disc" : ""),
          "data-ann": String(i), "data-set": a.set, "data-class": a.class,
        });
        mark.style.setProperty("--c", sets.get(a.set).colour);
        mark.style.setProperty("--lvl", String(stack.length - 1 - depth));
        parent.append(mark);
        parent = mark;
      });
      parent.append(piece);
    }
    textEl.replaceChildren(frag);
    const perSet = new Map();
    for (const i of shown) perSet.set(anns[i].set, (perSet.get(anns[i].set) || 0) + 1);
    for (const [key, node] of countNodes) node.textContent = `${perSet.get(key) || 0}/${sets.get(key).count}`;
    statusEl.textContent = `${shown.length} annotations shown of ${anns.length} ` +
      `(hover for class, click for the class page)`;
    textEl.dataset.shown = String(shown.length);
    markFocus();
    updateUrl();
  }

  // #class=<CURIE> (the class page's links) outlines that class's annotations
  function focusClass() {
    const m = /^#class=(.+)$/.exec(window.location.hash);
    return m ? decodeURIComponent(m[1]) : null;
  }

  function markFocus() {
    const curie = focusClass();
    if (curie === null) return;
    for (const m of textEl.querySelectorAll("mark.ann")) {
      if (m.dataset.class === curie) m.classList.add("focus");
    }
  }

  function updateUrl() {
    const p = new URLSearchParams();
    p.set("sets", [...state.sets].join(","));
    for (const k of ["proper", "extension", "outermost", "nested"]) if (!state[k]) p.set(k, "0");
    window.history.replaceState(null, "", "?" + p.toString().replace(/%2C/g, ",") + window.location.hash);
  }

  // -- legend ------------------------------------------------------------------------
  const countNodes = new Map();
  const setBoxes = new Map();

  function checkbox(id, checked, onChange, ...label) {
    const box = el("input", { type: "checkbox", id, checked });
    box.addEventListener("change", () => { onChange(box.checked); render(); });
    return [box, el("label", { htmlFor: id }, ...label)];
  }

  function buildLegend() {
    const list = el("ul", { class: "sets" });
    data.sets.forEach((s, n) => {
      const swatch = el("span", { class: "swatch" + (s.variant === "extensions" ? " ext" : "") });
      swatch.style.setProperty("--c", s.colour);
      const count = el("span", { class: "count" });
      countNodes.set(s.key, count);
      const [box, label] = checkbox("set-" + n, state.sets.has(s.key),
        (on) => { if (on) state.sets.add(s.key); else state.sets.delete(s.key); },
        swatch, el("span", { class: "key", text: s.key }), " ", count);
      box.dataset.set = s.key;
      setBoxes.set(s.key, box);
      const item = el("li", { class: s.count ? "" : "empty" }, box, label);
      list.append(item);
    });
    const all = el("button", { type: "button", id: "sets-all", text: "all" });
    const none = el("button", { type: "button", id: "sets-none", text: "none" });
    const defaults = el("button", { type: "button", id: "sets-default", text: "default" });
    const pick = (keys) => {
      state.sets = new Set(keys);
      for (const [k, b] of setBoxes) b.checked = state.sets.has(k);
      render();
    };
    all.addEventListener("click", () => pick(data.sets.map((s) => s.key)));
    none.addEventListener("click", () => pick([]));
    defaults.addEventListener("click", () => pick(data.sets.filter((s) => s.default).map((s) => s.key)));

    const view = (name, title) => checkbox("view-" + name, state[name], (on) => { state[name] = on; }, title);
    legendEl.replaceChildren(
      el("h2", { text: "Annotation sets" }),
      el("p", { class: "hint", text: "one colour per ontology; dashed: extension class" }),
      list,
      el("p", { class: "buttons" }, all, " ", none, " ", defaults),
      el("h2", { text: "Classes" }),
      el("p", {}, ...view("proper", "proper (OBO) classes")),
      el("p", {}, ...view("extension", "extension classes (_EXT)")),
      el("h2", { text: "Nesting" }),
      el("p", {}, ...view("outermost", "outermost annotations")),
      el("p", {}, ...view("nested", "nested annotations")),
      el("p", { class: "hint", text: "nested: inside another annotation of a set shown" }),
    );
  }

  // -- hover and click ---------------------------------------------------------------
  let lit = [];

  function unlight() {
    for (const m of lit) m.classList.remove("hl");
    lit = [];
  }

  function hideTip() {
    unlight();
    tip.hidden = true;
  }

  function showTip(mark, ev) {
    unlight();
    const i = mark.dataset.ann;
    // every piece of the annotation lights up: a discontinuous annotation is one annotation
    lit = [...textEl.querySelectorAll(`mark[data-ann="${i}"]`)];
    for (const m of lit) m.classList.add("hl");
    const stack = [];
    for (let m = mark; m && m !== textEl; m = m.parentElement) {
      if (m.matches("mark.ann")) stack.push(anns[+m.dataset.ann]);
    }
    tip.replaceChildren(...stack.map((a, n) => {
      const swatch = el("span", { class: "swatch" });
      swatch.style.setProperty("--c", sets.get(a.set).colour);
      const row = el("div", { class: "tip-row" + (n === 0 ? " top" : "") },
        swatch,
        el("span", { class: "tip-label", text: a.label || "(no label)" }), " ",
        el("code", { class: "tip-id", text: a.class }), " ",
        el("span", { class: "tip-set", text: a.set + (a.extension ? " · extension" : "") }));
      if (a.pieces.length > 1) {
        row.append(el("div", { class: "tip-disc", text: `${a.pieces.length} pieces: ${a.text || ""}` }));
      }
      return row;
    }));
    tip.hidden = false;
    const x = Math.min(ev.clientX + 12, window.innerWidth - tip.offsetWidth - 8);
    const y = ev.clientY + 18 + tip.offsetHeight > window.innerHeight ? ev.clientY - tip.offsetHeight - 12 : ev.clientY + 18;
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  }

  textEl.addEventListener("mouseover", (ev) => {
    const mark = ev.target.closest("mark.ann");
    if (mark) showTip(mark, ev); else hideTip();
  });
  textEl.addEventListener("mouseleave", hideTip);
  textEl.addEventListener("click", (ev) => {
    const mark = ev.target.closest("mark.ann");
    if (mark) window.location.href = classHref(anns[+mark.dataset.ann].class);
  });

  buildLegend();
  render();
  const first = textEl.querySelector("mark.focus");
  if (first) first.scrollIntoView({ block: "center" });
})();
