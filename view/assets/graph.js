// graph.js: draws a graph of up to a few hundred thousand points and
// lines, with pan, zoom, hover and click. WebGL when the browser has it
// (points and lines in two draw calls); a 2D canvas otherwise (batched
// paths, culled to the viewport), so the page also works where WebGL is
// off (headless browsers without a GPU, some remote desktops).
"use strict";

const VERT_POINT = `
attribute vec2 a_pos; attribute float a_size; attribute vec4 a_color;
uniform vec2 u_center; uniform vec2 u_scale; uniform float u_zoom; uniform float u_ratio;
varying vec4 v_color;
void main() {
  gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0);
  gl_PointSize = a_size * u_zoom * u_ratio * 2.0;
  v_color = a_color;
}`;
const FRAG_POINT = `
precision mediump float; varying vec4 v_color;
void main() {
  vec2 c = gl_PointCoord * 2.0 - 1.0; float d = dot(c, c);
  if (d > 1.0) discard;
  float edge = smoothstep(1.0, 0.8, d);
  gl_FragColor = vec4(v_color.rgb, v_color.a * edge);
}`;
const VERT_LINE = `
attribute vec2 a_pos; attribute vec4 a_color;
uniform vec2 u_center; uniform vec2 u_scale; varying vec4 v_color;
void main() { gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0); v_color = a_color; }`;
const FRAG_LINE = `precision mediump float; varying vec4 v_color; void main() { gl_FragColor = v_color; }`;

function compile(gl, vs, fs) {
  const p = gl.createProgram();
  for (const [type, src] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    gl.attachShader(p, s);
  }
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}

export class GraphCanvas {
  // host: an element; the canvases fill it. opts.webgl === false forces 2D.
  constructor(host, opts = {}) {
    this.host = host;
    this.canvas = document.createElement("canvas");
    this.labels = document.createElement("canvas");
    this.canvas.className = "graph-layer";
    this.labels.className = "graph-layer labels";
    host.append(this.canvas, this.labels);
    this.ratio = window.devicePixelRatio || 1;
    this.gl = null;
    if (opts.webgl !== false) {
      try {
        this.gl = this.canvas.getContext("webgl", { antialias: true, premultipliedAlpha: false });
        if (this.gl) this.initGL();
      } catch (e) {
        this.gl = null;
      }
    }
    if (!this.gl) this.ctx = this.canvas.getContext("2d");
    this.lctx = this.labels.getContext("2d");
    this.renderer = this.gl ? "webgl" : "canvas";
    this.cam = { x: 0, y: 0, scale: 1 };
    this.fitScale = 1;
    this.n = 0;
    this.hover = -1;
    this.onHover = null;
    this.onClick = null;
    this.frames = 0;
    this.pending = false;
    this.resize();
    new ResizeObserver(() => { this.resize(); this.redraw(); }).observe(host);
    this.bindInput();
  }

  initGL() {
    const gl = this.gl;
    this.pointProg = compile(gl, VERT_POINT, FRAG_POINT);
    this.lineProg = compile(gl, VERT_LINE, FRAG_LINE);
    this.buf = { pos: gl.createBuffer(), size: gl.createBuffer(), color: gl.createBuffer(), lpos: gl.createBuffer(), lcolor: gl.createBuffer() };
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
  }

  resize() {
    const r = this.host.getBoundingClientRect();
    this.w = Math.max(1, r.width);
    this.h = Math.max(1, r.height);
    for (const c of [this.canvas, this.labels]) {
      c.width = Math.round(this.w * this.ratio);
      c.height = Math.round(this.h * this.ratio);
      c.style.width = this.w + "px";
      c.style.height = this.h + "px";
    }
  }

  // data: { x, y: Float32Array; size: Float32Array (px radius at fit zoom);
  //   color: Uint8Array (rgba per node); edges: Uint32Array pairs;
  //   edgeColor: Uint8Array (rgba per edge); label: i => string;
  //   labelled: indexes always labelled (hubs, highlighted), best first }
  setData(d, fit = true) {
    this.d = d;
    this.n = d.x.length;
    this.buildGrid();
    if (this.gl) this.upload();
    if (fit) this.fit();
    this.redraw();
  }

  upload() {
    const gl = this.gl, d = this.d, n = this.n;
    const pos = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) { pos[2 * i] = d.x[i]; pos[2 * i + 1] = d.y[i]; }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf.pos); gl.bufferData(gl.ARRAY_BUFFER, pos, gl.STATIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf.size); gl.bufferData(gl.ARRAY_BUFFER, d.size, gl.STATIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf.color); gl.bufferData(gl.ARRAY_BUFFER, d.color, gl.STATIC_DRAW);
    const m = d.edges.length / 2;
    const lpos = new Float32Array(4 * m), lcol = new Uint8Array(8 * m);
    for (let e = 0; e < m; e++) {
      const a = d.edges[2 * e], b = d.edges[2 * e + 1];
      lpos[4 * e] = d.x[a]; lpos[4 * e + 1] = d.y[a]; lpos[4 * e + 2] = d.x[b]; lpos[4 * e + 3] = d.y[b];
      for (let k = 0; k < 4; k++) { lcol[8 * e + k] = d.edgeColor[4 * e + k]; lcol[8 * e + 4 + k] = d.edgeColor[4 * e + k]; }
    }
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf.lpos); gl.bufferData(gl.ARRAY_BUFFER, lpos, gl.STATIC_DRAW);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.buf.lcolor); gl.bufferData(gl.ARRAY_BUFFER, lcol, gl.STATIC_DRAW);
    this.lineCount = 2 * m;
  }

  bounds(only) {
    const d = this.d;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const each = only || Array.from({ length: this.n }, (_, i) => i);
    for (const i of each) {
      if (d.hidden && d.hidden[i]) continue;
      x0 = Math.min(x0, d.x[i]); x1 = Math.max(x1, d.x[i]);
      y0 = Math.min(y0, d.y[i]); y1 = Math.max(y1, d.y[i]);
    }
    if (!isFinite(x0)) return { x0: -1, y0: -1, x1: 1, y1: 1 };
    return { x0, y0, x1, y1 };
  }

  // fit zooms to show every visible node, or only those listed.
  fit(only) {
    const b = this.bounds(only);
    // A margin for the labels right of the nodes and the legend's corner.
    const pad = Math.max(40, Math.min(this.w, this.h) * 0.12);
    const sw = Math.max(b.x1 - b.x0, 1e-6), sh = Math.max(b.y1 - b.y0, 1e-6);
    this.cam.scale = Math.min((this.w - 2 * pad) / sw, (this.h - 2 * pad) / sh);
    if (!isFinite(this.cam.scale) || this.cam.scale <= 0) this.cam.scale = 1;
    this.cam.scale = Math.min(this.cam.scale, 60);
    this.cam.x = (b.x0 + b.x1) / 2;
    this.cam.y = (b.y0 + b.y1) / 2;
    if (!only) this.fitScale = this.cam.scale;
    this.redraw();
  }

  // zoom is how much node sizes grow when zooming in (sublinear).
  zoom() {
    return Math.min(6, Math.max(0.6, Math.sqrt(this.cam.scale / this.fitScale)));
  }

  toScreen(x, y) {
    return [(x - this.cam.x) * this.cam.scale + this.w / 2, (y - this.cam.y) * this.cam.scale + this.h / 2];
  }
  toWorld(sx, sy) {
    return [(sx - this.w / 2) / this.cam.scale + this.cam.x, (sy - this.h / 2) / this.cam.scale + this.cam.y];
  }

  buildGrid() {
    const d = this.d;
    const b = this.bounds();
    this.cell = Math.max((b.x1 - b.x0) / 256, (b.y1 - b.y0) / 256, 1e-6);
    this.grid = new Map();
    for (let i = 0; i < this.n; i++) {
      const k = Math.floor(d.x[i] / this.cell) + "," + Math.floor(d.y[i] / this.cell);
      let a = this.grid.get(k);
      if (!a) this.grid.set(k, (a = []));
      a.push(i);
    }
  }

  // pick returns the node under screen point (sx, sy), or -1.
  pick(sx, sy) {
    if (!this.n) return -1;
    const [wx, wy] = this.toWorld(sx, sy);
    const z = this.zoom();
    const reach = (14 * z) / this.cam.scale;
    const r = Math.ceil(reach / this.cell);
    const cx = Math.floor(wx / this.cell), cy = Math.floor(wy / this.cell);
    let best = -1, bestD = Infinity;
    const d = this.d;
    if (r > 64) return -1;
    for (let gx = cx - r; gx <= cx + r; gx++) {
      for (let gy = cy - r; gy <= cy + r; gy++) {
        const a = this.grid.get(gx + "," + gy);
        if (!a) continue;
        for (const i of a) {
          if (d.hidden && d.hidden[i]) continue;
          const dx = (d.x[i] - wx) * this.cam.scale, dy = (d.y[i] - wy) * this.cam.scale;
          const dist = Math.hypot(dx, dy);
          const rad = Math.max(4, d.size[i] * z + 2);
          if (dist <= rad && dist < bestD) { best = i; bestD = dist; }
        }
      }
    }
    return best;
  }

  bindInput() {
    const el = this.labels;
    let drag = null, moved = false;
    el.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = el.getBoundingClientRect();
      const sx = e.clientX - r.left, sy = e.clientY - r.top;
      const [wx, wy] = this.toWorld(sx, sy);
      const f = Math.exp(-e.deltaY * 0.0015);
      this.cam.scale = Math.min(Math.max(this.cam.scale * f, this.fitScale * 0.2), this.fitScale * 400);
      const [nx, ny] = this.toWorld(sx, sy);
      this.cam.x += wx - nx;
      this.cam.y += wy - ny;
      this.redraw();
    }, { passive: false });
    el.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, cx: this.cam.x, cy: this.cam.y };
      moved = false;
      el.setPointerCapture(e.pointerId);
    });
    el.addEventListener("pointermove", (e) => {
      const r = el.getBoundingClientRect();
      if (drag) {
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
        this.cam.x = drag.cx - dx / this.cam.scale;
        this.cam.y = drag.cy - dy / this.cam.scale;
        this.redraw();
        return;
      }
      const i = this.pick(e.clientX - r.left, e.clientY - r.top);
      if (i !== this.hover) {
        this.hover = i;
        el.style.cursor = i >= 0 ? "pointer" : "grab";
        if (this.onHover) this.onHover(i);
        this.redraw();
      }
    });
    el.addEventListener("pointerup", (e) => {
      const r = el.getBoundingClientRect();
      if (drag && !moved && this.onClick) {
        const i = this.pick(e.clientX - r.left, e.clientY - r.top);
        if (i >= 0) this.onClick(i);
      }
      drag = null;
    });
    el.addEventListener("pointerleave", () => {
      if (this.hover >= 0) { this.hover = -1; if (this.onHover) this.onHover(-1); this.redraw(); }
    });
  }

  redraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  draw() {
    if (!this.d) return;
    if (this.gl) this.drawGL(); else this.draw2D();
    this.drawLabels();
    this.frames++;
    if (this.onDrawn) this.onDrawn(this.frames);
  }

  uniforms(prog) {
    const gl = this.gl;
    gl.uniform2f(gl.getUniformLocation(prog, "u_center"), this.cam.x, this.cam.y);
    gl.uniform2f(gl.getUniformLocation(prog, "u_scale"), (2 * this.cam.scale) / this.w, (-2 * this.cam.scale) / this.h);
  }

  attrib(prog, name, buf, size, type, norm) {
    const gl = this.gl;
    const loc = gl.getAttribLocation(prog, name);
    gl.bindBuffer(gl.ARRAY_BUFFER, buf);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, size, type, norm, 0, 0);
  }

  drawGL() {
    const gl = this.gl;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    gl.useProgram(this.lineProg);
    this.uniforms(this.lineProg);
    this.attrib(this.lineProg, "a_pos", this.buf.lpos, 2, gl.FLOAT, false);
    this.attrib(this.lineProg, "a_color", this.buf.lcolor, 4, gl.UNSIGNED_BYTE, true);
    gl.drawArrays(gl.LINES, 0, this.lineCount);
    gl.useProgram(this.pointProg);
    this.uniforms(this.pointProg);
    gl.uniform1f(gl.getUniformLocation(this.pointProg, "u_zoom"), this.zoom());
    gl.uniform1f(gl.getUniformLocation(this.pointProg, "u_ratio"), this.ratio);
    this.attrib(this.pointProg, "a_pos", this.buf.pos, 2, gl.FLOAT, false);
    this.attrib(this.pointProg, "a_size", this.buf.size, 1, gl.FLOAT, false);
    this.attrib(this.pointProg, "a_color", this.buf.color, 4, gl.UNSIGNED_BYTE, true);
    gl.drawArrays(gl.POINTS, 0, this.n);
  }

  draw2D() {
    const c = this.ctx, d = this.d, s = this.cam.scale, z = this.zoom();
    c.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    c.clearRect(0, 0, this.w, this.h);
    const [vx0, vy0] = this.toWorld(-20, -20), [vx1, vy1] = this.toWorld(this.w + 20, this.h + 20);
    const inView = (i) => d.x[i] >= vx0 && d.x[i] <= vx1 && d.y[i] >= vy0 && d.y[i] <= vy1;
    // Edges grouped by colour: one path and one stroke per colour.
    const groups = new Map();
    const m = d.edges.length / 2;
    for (let e = 0; e < m; e++) {
      const a = d.edges[2 * e], b = d.edges[2 * e + 1];
      if (!inView(a) && !inView(b)) continue;
      const k = d.edgeColor[4 * e] << 24 | d.edgeColor[4 * e + 1] << 16 | d.edgeColor[4 * e + 2] << 8 | d.edgeColor[4 * e + 3];
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(a, b);
    }
    c.lineWidth = 1;
    for (const [k, g] of groups) {
      c.strokeStyle = `rgba(${k >>> 24},${(k >> 16) & 255},${(k >> 8) & 255},${(k & 255) / 255})`;
      c.beginPath();
      for (let j = 0; j < g.length; j += 2) {
        const [x1, y1] = this.toScreen(d.x[g[j]], d.y[g[j]]);
        const [x2, y2] = this.toScreen(d.x[g[j + 1]], d.y[g[j + 1]]);
        c.moveTo(x1, y1);
        c.lineTo(x2, y2);
      }
      c.stroke();
    }
    const nodes = new Map();
    for (let i = 0; i < this.n; i++) {
      if (!inView(i) || d.color[4 * i + 3] === 0) continue;
      const k = d.color[4 * i] << 24 | d.color[4 * i + 1] << 16 | d.color[4 * i + 2] << 8 | d.color[4 * i + 3];
      let g = nodes.get(k);
      if (!g) nodes.set(k, (g = []));
      g.push(i);
    }
    for (const [k, g] of nodes) {
      c.fillStyle = `rgba(${k >>> 24},${(k >> 16) & 255},${(k >> 8) & 255},${(k & 255) / 255})`;
      c.beginPath();
      for (const i of g) {
        const [x, y] = this.toScreen(d.x[i], d.y[i]);
        const r = Math.max(0.8, d.size[i] * z);
        c.moveTo(x + r, y);
        c.arc(x, y, r, 0, 2 * Math.PI);
      }
      c.fill();
    }
    void s;
  }

  // drawLabels writes the labels of the listed nodes that fit without
  // overlapping, then the hovered node's on top.
  drawLabels() {
    const c = this.lctx, d = this.d, z = this.zoom();
    c.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    c.clearRect(0, 0, this.w, this.h);
    c.font = "12px system-ui, sans-serif";
    c.textBaseline = "middle";
    const boxes = [];
    const put = (i, strong) => {
      if (i < 0 || (d.hidden && d.hidden[i])) return;
      const [x, y] = this.toScreen(d.x[i], d.y[i]);
      if (x < -50 || y < -20 || x > this.w + 50 || y > this.h + 20) return;
      const text = d.label(i);
      if (!text) return;
      const w = c.measureText(text).width;
      const r = d.size[i] * z;
      const bx = x + r + 3, by = y - 8;
      if (!strong && boxes.some((b) => bx < b[0] + b[2] && bx + w + 6 > b[0] && by < b[1] + 16 && by + 16 > b[1])) return;
      boxes.push([bx, by, w + 6]);
      c.fillStyle = strong ? "rgba(20,24,33,0.92)" : "rgba(20,24,33,0.7)";
      c.fillRect(bx - 2, by, w + 6, 16);
      c.fillStyle = strong ? "#fff" : "#d9dee8";
      c.fillText(text, bx + 1, y);
    };
    let budget = d.labelBudget || 40;
    for (const i of d.labelled || []) {
      if (budget-- <= 0) break;
      put(i, false);
    }
    if (this.hover >= 0) {
      const [x, y] = this.toScreen(d.x[this.hover], d.y[this.hover]);
      c.strokeStyle = "#fff";
      c.lineWidth = 2;
      c.beginPath();
      c.arc(x, y, Math.max(4, d.size[this.hover] * z + 2), 0, 2 * Math.PI);
      c.stroke();
      put(this.hover, true);
    }
  }
}
