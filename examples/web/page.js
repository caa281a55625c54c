// page.js - poses and skins with fk_lbs.h's WebAssembly build (skin_web.c) and
// draws with WebGL2: on the GPU through examples/shaders/ and the palettes the
// module writes, or on the CPU in the module, the vertices uploaded each frame.
// Skinning with centres of rotation needs each model's centres, which take
// the module seconds for the character: a worker with its own instance of the
// module computes them when the page starts, while the page runs, and the
// page shows how long they took.
// A browser without WebGL2 gets a note, and the CPU-skinned mesh drawn on a 2D
// canvas by the page's own rasterizer instead.
// FK_WEB (fk_web_data.js, from embed.mjs) holds the module, the shaders and
// the clip. Opened with ?test=1 the page checks itself (selfTest() below) and
// writes what it found into #results, #vertices and #picture for tests/web_test.sh.
'use strict';

const METHOD = { LBS: 0, DQS: 1, DQS_SCALED: 2, COR: 3 };
const BACKGROUND = [0.914, 0.902, 0.882]; // the canvas's CSS colour, #e9e6e1
const TINT = [0.80, 0.62, 0.50], MARKER_TINT = [0.85, 0.12, 0.15], LIGHT = [0.4, 0.8, 0.6];

const testing = new URLSearchParams(location.search).has('test');
const canvas = document.getElementById('view');
const gl = canvas.getContext('webgl2');
const context2d = gl ? null : canvas.getContext('2d', { willReadFrequently: testing }); // the self-test reads it back
const ui = id => document.getElementById(id);
const checked = name => Number(document.querySelector(`input[name=${name}]:checked`).value);
let wasm; // the module's exports

// ---- Small matrix helpers (column-major, as WebGL reads them) ----------------

function perspective(fovY, aspect, near, far) {
    const f = 1 / Math.tan(fovY / 2), d = near - far;
    return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, (far + near) / d, -1, 0, 0, 2 * far * near / d, 0];
}
const sub = (a, b) => a.map((x, i) => x - b[i]);
const add = (a, b) => a.map((x, i) => x + b[i]);
const scale = (a, s) => a.map(x => x * s);
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = a => scale(a, 1 / Math.hypot(...a));
function multiply(a, b) {
    const out = new Array(16).fill(0);
    for (let c = 0; c < 4; ++c)
        for (let r = 0; r < 4; ++r)
            for (let k = 0; k < 4; ++k) out[4 * c + r] += a[4 * k + r] * b[4 * c + k];
    return out;
}

// ---- The module's memory ----------------------------------------------------

// Views are made afresh: the module's malloc may grow its memory, which
// detaches every view made before.
const f32 = (pointer, count) => new Float32Array(wasm.memory.buffer, pointer, count);
const u16 = (pointer, count) => new Uint16Array(wasm.memory.buffer, pointer, count);
const u32 = (pointer, count) => new Uint32Array(wasm.memory.buffer, pointer, count);

let moduleBytes; // the module's code, which the centres' worker instantiates too
async function loadModule() {
    const bytes = moduleBytes = Uint8Array.from(atob(FK_WEB.wasm), c => c.charCodeAt(0));
    // The module imports only what ends a process: render.c's out-of-memory
    // exit and a failed assert, which write to stderr and exit.
    const fail = new Proxy({}, { get: (_, name) => () => { throw new Error(`wasm stopped: out of memory or an assertion (${String(name)})`); } });
    const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: fail });
    wasm = instance.exports;
    const text = new TextEncoder().encode(FK_WEB.bvh);
    const buffer = wasm.web_buffer(text.length);
    new Uint8Array(wasm.memory.buffer, buffer, text.length).set(text);
    if (!wasm.web_load_bvh(buffer, text.length)) throw new Error(`cannot read ${FK_WEB.bvhName}`);
    ui('model').options[1].text = `BVH clip (CMU ${FK_WEB.bvhName})`;
    ui('model').options[2].text = `CMU ${FK_WEB.bvhName} on the character (retargeted)`;
}

// ---- Shaders and meshes ------------------------------------------------------

const FRAGMENT = `in vec3 fk_skinned_normal;
uniform vec3 tint;
out vec4 color;
void main()
{
    float light = max(dot(normalize(fk_skinned_normal), normalize(vec3(${LIGHT.join(', ')}))), 0.0);
    color = vec4(tint * (0.35 + 0.65 * light), 1.0);
}`;
// CPU skinning: the vertices arrive skinned.
const PASS_THROUGH = `layout(location = 0) in vec3 fk_position;
layout(location = 1) in vec3 fk_normal;
uniform mat4 fk_view_projection;
out vec3 fk_skinned_normal;
void main()
{
    fk_skinned_normal = fk_normal;
    gl_Position = fk_view_projection * vec4(fk_position, 1.0);
}`;
const MARKER = `layout(location = 0) in vec3 fk_position;
uniform mat4 fk_view_projection;
out vec3 fk_skinned_normal;
void main()
{
    fk_skinned_normal = vec3(${LIGHT.join(', ')});
    gl_Position = fk_view_projection * vec4(fk_position, 1.0);
    gl_PointSize = 12.0;
}`;

function compile(vertexSource, defines) {
    const program = gl.createProgram();
    for (const [type, source] of [[gl.VERTEX_SHADER, vertexSource], [gl.FRAGMENT_SHADER, FRAGMENT]]) {
        const shader = gl.createShader(type);
        gl.shaderSource(shader, FK_WEB.prelude + defines + source);
        gl.compileShader(shader);
        if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
        gl.attachShader(program, shader);
    }
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
    return program;
}

let programs, meshes = [];
function makePrograms() {
    const bones = `#define FK_MAX_BONES ${wasm.web_max_joints()}\n`;
    programs = {
        [METHOD.LBS]: compile(FK_WEB.shaders.lbs, bones),
        [METHOD.DQS]: compile(FK_WEB.shaders.dqs, bones),
        [METHOD.DQS_SCALED]: compile(FK_WEB.shaders.dqs, bones + '#define FK_DQS_SCALE_AT_VERTEX\n'),
        [METHOD.COR]: compile(FK_WEB.shaders.cor, bones),
        cpu: compile(PASS_THROUGH, ''),
        marker: compile(MARKER, ''),
    };
}

function buffer(target, data, usage = gl.STATIC_DRAW) {
    const b = gl.createBuffer();
    gl.bindBuffer(target, b);
    gl.bufferData(target, data, usage);
    return b;
}

// A model's counts, its length in seconds, and where the camera looks. The
// module answers for the model selected last, so each is read here, once.
function makeMesh(model) {
    const n = wasm.web_select(model);
    const mesh = { model, vertexCount: n, indexCount: 3 * wasm.web_triangle_count(), duration: wasm.web_duration() };
    // the camera frames the rest mesh's height and follows the root
    const p = f32(wasm.web_positions(), 3 * n);
    let low = Infinity, high = -Infinity;
    for (let i = 1; i < p.length; i += 3) { low = Math.min(low, p[i]); high = Math.max(high, p[i]); }
    mesh.size = high - low;
    mesh.centerY = (low + high) / 2;
    if (gl) makeVertexArrays(mesh);
    return mesh;
}

// Two vertex arrays a model, of the model selected: the rest mesh for the
// shaders (the attribute locations of docs/gpu.md), and the CPU's skinned vertices.
function makeVertexArrays(mesh) {
    const n = mesh.vertexCount;
    mesh.gpu = gl.createVertexArray();
    gl.bindVertexArray(mesh.gpu);
    buffer(gl.ARRAY_BUFFER, f32(wasm.web_positions(), 3 * n));
    gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    buffer(gl.ARRAY_BUFFER, f32(wasm.web_normals(), 3 * n));
    gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
    buffer(gl.ARRAY_BUFFER, u16(wasm.web_joints(), 4 * n));
    gl.enableVertexAttribArray(3); gl.vertexAttribIPointer(3, 4, gl.UNSIGNED_SHORT, 0, 0);
    buffer(gl.ARRAY_BUFFER, f32(wasm.web_weights(), 4 * n));
    gl.enableVertexAttribArray(4); gl.vertexAttribPointer(4, 4, gl.FLOAT, false, 0, 0);
    mesh.centers = buffer(gl.ARRAY_BUFFER, 12 * n); // filled when the centres arrive (useCenters())
    gl.enableVertexAttribArray(7); gl.vertexAttribPointer(7, 3, gl.FLOAT, false, 0, 0);
    const indices = buffer(gl.ELEMENT_ARRAY_BUFFER, u32(wasm.web_triangles(), mesh.indexCount));
    mesh.cpu = gl.createVertexArray();
    gl.bindVertexArray(mesh.cpu);
    mesh.positions = buffer(gl.ARRAY_BUFFER, 12 * n, gl.DYNAMIC_DRAW);
    gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    mesh.normals = buffer(gl.ARRAY_BUFFER, 12 * n, gl.DYNAMIC_DRAW);
    gl.enableVertexAttribArray(1); gl.vertexAttribPointer(1, 3, gl.FLOAT, false, 0, 0);
    gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indices);
    mesh.marker = gl.createVertexArray();
    gl.bindVertexArray(mesh.marker);
    mesh.markerBuffer = buffer(gl.ARRAY_BUFFER, 12, gl.DYNAMIC_DRAW);
    gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 3, gl.FLOAT, false, 0, 0);
    gl.bindVertexArray(null);
}

// ---- State, posing, drawing ----------------------------------------------------

const state = { model: 0, method: METHOD.DQS, cpu: false, time: 0, playing: true, ik: true, offsets: [] };
let camera; // the last frame's: eye, view-projection, basis

function rootPosition() { return Array.from(f32(wasm.web_joint_positions(), 3)); }
function jointPosition(j) { return Array.from(f32(wasm.web_joint_positions() + 12 * j, 3)); }

// The IK target, kept relative to the root so that it travels with a clip:
// by default ahead of and above the shoulder by about half the arm.
function target() {
    const mesh = meshes[state.model];
    if (!state.offsets[state.model]) {
        wasm.web_pose(0, METHOD.LBS, 0, 0, 0, 0);
        const shoulder = jointPosition(wasm.web_arm(0)), wrist = jointPosition(wasm.web_arm(2));
        const arm = Math.hypot(...sub(wrist, shoulder));
        state.offsets[state.model] = add(sub(shoulder, rootPosition()), [0, 0.45 * arm, 0.55 * arm]);
        mesh.hasArm = wasm.web_arm(0) >= 0;
    }
    return state.offsets[state.model];
}

function pose() {
    wasm.web_select(state.model);
    const offset = target();
    wasm.web_pose(state.time, state.method, 0, 0, 0, 0); // where the root is at this time
    const t = add(rootPosition(), offset);
    const result = wasm.web_pose(state.time, state.method, state.ik ? 1 : 0, ...t);
    if (result !== 0) throw new Error(`web_pose: fk_result ${result}`);
    return t;
}

// ---- Centres of rotation ------------------------------------------------------

// The centres' job: the module instantiated again, the clip loaded, and the
// centres of the clip's tubes (model 1) and of the character (model 0, whose
// mesh and weights the clip on the character shares) computed and timed, each
// passed to post() as it is done. It runs in a worker, from this function's
// source, so that the page runs meanwhile; the self-test runs it here, where
// headless Chromium's virtual time waits for it.
async function centersJob(bytes, bvh, post) {
    const fail = new Proxy({}, { get: () => () => { throw new Error('wasm stopped'); } });
    // Compiled at once, not awaited: on the page's own thread (the self-test,
    // or no worker) a headless browser's virtual time may otherwise run out
    // while a loaded machine compiles it in the background.
    const m = new WebAssembly.Instance(new WebAssembly.Module(bytes), { wasi_snapshot_preview1: fail }).exports;
    const text = new TextEncoder().encode(bvh), buffer = m.web_buffer(text.length);
    new Uint8Array(m.memory.buffer, buffer, text.length).set(text);
    m.web_load_bvh(buffer, text.length);
    for (const model of [1, 0]) {
        const n = m.web_select(model), start = performance.now(), result = m.web_cor_centers();
        const ms = performance.now() - start;
        const centers = result === 0 ? new Float32Array(m.memory.buffer, m.web_centers(), 3 * n).slice() : null;
        post({ model, result, ms, centers });
    }
}
const CENTERS_WORKER = `const centersJob = ${centersJob};
onmessage = ({ data: { bytes, bvh } }) => centersJob(bytes, bvh, message => postMessage(message));`;

// Resolves when every model has its centres.
const centersMs = [];
function loadCenters() {
    return new Promise((resolve, reject) => {
        const receive = ({ model, result, ms, centers }) => {
            if (result !== 0) throw new Error(`web_cor_centers: fk_result ${result}`);
            useCenters(model, ms, centers);
            if (model === 0) resolve();
        };
        let worker = null;
        try {
            if (!testing) worker = new Worker(URL.createObjectURL(new Blob([CENTERS_WORKER], { type: 'text/javascript' })));
        } catch (error) { /* no worker: the job runs here, and the page waits for it */ }
        if (!worker) {
            centersJob(moduleBytes, FK_WEB.bvh, receive).catch(reject);
            return;
        }
        worker.onerror = e => reject(new Error(`the centres' worker: ${e.message}`));
        worker.onmessage = ({ data }) => {
            try { receive(data); } catch (error) { reject(error); }
            if (data.model === 0) worker.terminate();
        };
        worker.postMessage({ bytes: moduleBytes, bvh: FK_WEB.bvh });
    });
}

// A model's centres, into the module and into the model's vertex array; the
// character's serve the clip on it too.
function useCenters(model, ms, centers) {
    centersMs[model] = ms;
    for (const m of model === 0 ? [0, 2] : [model]) {
        const mesh = meshes[m];
        wasm.web_select(m);
        f32(wasm.web_centers_storage(), 3 * mesh.vertexCount).set(centers);
        if (gl) {
            gl.bindBuffer(gl.ARRAY_BUFFER, mesh.centers);
            gl.bufferSubData(gl.ARRAY_BUFFER, 0, f32(wasm.web_centers(), 3 * mesh.vertexCount));
        }
        mesh.hasCenters = true;
    }
    showCenters();
}

// The time the shown model's centres took, and CoR offered once they are here.
function showCenters() {
    const mesh = meshes[state.model], ms = centersMs[state.model === 2 ? 0 : state.model];
    ui('cor-time').textContent = !mesh.hasCenters ? 'being computed in the background' :
        `${ms.toFixed(1)} ms to compute for ${mesh.vertexCount} vertices (fk_cor_centers(), once)`;
    const choice = document.querySelector(`input[name=method][value="${METHOD.COR}"]`);
    choice.disabled = !mesh.hasCenters;
    if (choice.disabled && state.method === METHOD.COR) { // a model whose centres are still to come
        state.method = METHOD.DQS;
        document.querySelector(`input[name=method][value="${METHOD.DQS}"]`).checked = true;
    }
}

// ---- Drawing --------------------------------------------------------------------

function draw() {
    const mesh = meshes[state.model];
    const t = pose();
    const root = rootPosition();
    const focus = [root[0], mesh.centerY, root[2]];
    const eye = add(focus, scale(normalize([0.45, 0.12, 1]), 2.1 * mesh.size));
    const forward = normalize(sub(focus, eye)), right = normalize(cross(forward, [0, 1, 0])), up = cross(right, forward);
    const view = [right[0], up[0], -forward[0], 0, right[1], up[1], -forward[1], 0, right[2], up[2], -forward[2], 0,
                  -dot(right, eye), -dot(up, eye), dot(forward, eye), 1];
    const viewProjection = multiply(perspective(0.7, canvas.width / canvas.height, 0.05 * mesh.size, 10 * mesh.size), view);
    camera = { eye, forward, right, up, viewProjection };
    if (gl) drawWebGL(mesh, t, viewProjection);
    else drawCanvas2d(mesh, t, viewProjection);
}

function drawWebGL(mesh, t, viewProjection) {
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(...BACKGROUND, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    let program;
    if (state.cpu) {
        if (wasm.web_skin(state.method) !== 0) throw new Error('web_skin failed');
        gl.bindBuffer(gl.ARRAY_BUFFER, mesh.positions);
        gl.bufferSubData(gl.ARRAY_BUFFER, 0, f32(wasm.web_skinned_positions(), 3 * mesh.vertexCount));
        gl.bindBuffer(gl.ARRAY_BUFFER, mesh.normals);
        gl.bufferSubData(gl.ARRAY_BUFFER, 0, f32(wasm.web_skinned_normals(), 3 * mesh.vertexCount));
        program = programs.cpu;
        gl.useProgram(program);
        gl.bindVertexArray(mesh.cpu);
    } else {
        program = programs[state.method];
        gl.useProgram(program);
        const bones = wasm.web_joint_count();
        if (state.method === METHOD.LBS) {
            gl.uniform4fv(gl.getUniformLocation(program, 'fk_matrices'), f32(wasm.web_palette_matrices(), 12 * bones));
        } else { // DQS, and CoR, which reads DQS's palette
            gl.uniform4fv(gl.getUniformLocation(program, 'fk_dual_quats'), f32(wasm.web_palette_dual_quats(), 8 * bones));
            if (state.method === METHOD.DQS_SCALED)
                gl.uniform4fv(gl.getUniformLocation(program, 'fk_scale_parts'), f32(wasm.web_palette_scale_parts(), 12 * bones));
        }
        gl.bindVertexArray(mesh.gpu);
    }
    gl.uniformMatrix4fv(gl.getUniformLocation(program, 'fk_view_projection'), false, viewProjection);
    gl.uniform3f(gl.getUniformLocation(program, 'tint'), ...TINT);
    gl.drawElements(gl.TRIANGLES, mesh.indexCount, gl.UNSIGNED_INT, 0);
    if (state.ik && mesh.hasArm) {
        gl.disable(gl.DEPTH_TEST);
        gl.useProgram(programs.marker);
        gl.bindVertexArray(mesh.marker);
        gl.bindBuffer(gl.ARRAY_BUFFER, mesh.markerBuffer);
        gl.bufferSubData(gl.ARRAY_BUFFER, 0, new Float32Array(t));
        gl.uniformMatrix4fv(gl.getUniformLocation(programs.marker, 'fk_view_projection'), false, viewProjection);
        gl.uniform3f(gl.getUniformLocation(programs.marker, 'tint'), ...MARKER_TINT);
        gl.drawArrays(gl.POINTS, 0, 1);
    }
    gl.bindVertexArray(null);
}

// Where a point lands on the canvas, in pixels from its top left corner, and
// how far it is in front of the camera (its clip w).
function project(m, x, y, z) {
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    return [(1 + (m[0] * x + m[4] * y + m[8] * z + m[12]) / w) * canvas.width / 2,
            (1 - (m[1] * x + m[5] * y + m[9] * z + m[13]) / w) * canvas.height / 2, w];
}

// Colours as the canvas's pixels hold them: packed through bytes, so that the
// byte order is the canvas's own.
const packed = colours => new Uint32Array(new Uint8ClampedArray(colours.flatMap(c => [...c.map(v => 255 * v), 255])).buffer);

// Without WebGL2 the module skins on the CPU and the page rasterizes the mesh
// itself into an image with a depth buffer (a 2D canvas path a triangle, painted
// far to near, is far slower at this many triangles), lit at the vertices as the
// fragment shader lights each pixel: 256 shades of the tint.
let raster;
function drawCanvas2d(mesh, t, viewProjection) {
    const w = canvas.width, h = canvas.height;
    if (!raster) {
        const image = context2d.createImageData(w, h);
        raster = { image, colour: new Uint32Array(image.data.buffer), depth: new Float32Array(w * h),
                   shades: packed(Array.from({ length: 256 }, (_, s) => TINT.map(c => c * s / 255))), background: packed([BACKGROUND])[0] };
    }
    if (wasm.web_skin(state.method) !== 0) throw new Error('web_skin failed');
    const n = mesh.vertexCount, p = f32(wasm.web_skinned_positions(), 3 * n), normals = f32(wasm.web_skinned_normals(), 3 * n);
    const triangles = u32(wasm.web_triangles(), mesh.indexCount), light = normalize(LIGHT), near = 0.05 * mesh.size;
    const x = new Float32Array(n), y = new Float32Array(n), z = new Float32Array(n), shade = new Float32Array(n);
    const m = viewProjection;
    for (let v = 0; v < n; ++v) { // project() written out: it runs for every vertex of every frame
        const px = p[3 * v], py = p[3 * v + 1], pz = p[3 * v + 2], nx = normals[3 * v], ny = normals[3 * v + 1], nz = normals[3 * v + 2];
        const cw = m[3] * px + m[7] * py + m[11] * pz + m[15];
        x[v] = (1 + (m[0] * px + m[4] * py + m[8] * pz + m[12]) / cw) * w / 2;
        y[v] = (1 - (m[1] * px + m[5] * py + m[9] * pz + m[13]) / cw) * h / 2;
        z[v] = cw > near ? 1 / cw : 0; // 1/w runs linearly across the screen; 0 marks behind the near plane
        shade[v] = 255 * (0.35 + 0.65 * Math.max((nx * light[0] + ny * light[1] + nz * light[2]) / (Math.hypot(nx, ny, nz) || 1), 0));
    }
    const { colour, depth, shades } = raster;
    colour.fill(raster.background);
    depth.fill(0);
    for (let i = 0; i < mesh.indexCount; i += 3) {
        const a = triangles[i], b = triangles[i + 1], c = triangles[i + 2];
        const area = (x[b] - x[a]) * (y[c] - y[a]) - (x[c] - x[a]) * (y[b] - y[a]);
        if (!z[a] || !z[b] || !z[c] || !area) continue;
        const left = Math.max(0, Math.floor(Math.min(x[a], x[b], x[c]))), right = Math.min(w - 1, Math.ceil(Math.max(x[a], x[b], x[c])));
        const top = Math.max(0, Math.floor(Math.min(y[a], y[b], y[c]))), bottom = Math.min(h - 1, Math.ceil(Math.max(y[a], y[b], y[c])));
        // the barycentric weights of a and b at the pixels' centres, and their steps
        const ax = (y[b] - y[c]) / area, ay = (x[c] - x[b]) / area, bx = (y[c] - y[a]) / area, by = (x[a] - x[c]) / area;
        const la0 = ((x[b] - left - 0.5) * (y[c] - top - 0.5) - (x[c] - left - 0.5) * (y[b] - top - 0.5)) / area;
        const lb0 = ((x[c] - left - 0.5) * (y[a] - top - 0.5) - (x[a] - left - 0.5) * (y[c] - top - 0.5)) / area;
        const za = z[a] - z[c], zb = z[b] - z[c], sa = shade[a] - shade[c], sb = shade[b] - shade[c];
        for (let py = top; py <= bottom; ++py) {
            let la = la0 + (py - top) * ay, lb = lb0 + (py - top) * by;
            for (let k = py * w + left; k <= py * w + right; ++k, la += ax, lb += bx) {
                if (la < 0 || lb < 0 || la + lb > 1) continue;
                const nearness = z[c] + la * za + lb * zb;
                if (nearness <= depth[k]) continue;
                depth[k] = nearness;
                colour[k] = shades[(shade[c] + la * sa + lb * sb) | 0];
            }
        }
    }
    context2d.putImageData(raster.image, 0, 0);
    if (state.ik && mesh.hasArm) {
        const [mx, my] = project(viewProjection, ...t);
        context2d.fillStyle = `rgb(${MARKER_TINT.map(c => Math.round(255 * c))})`;
        context2d.fillRect(mx - 6, my - 6, 12, 12);
    }
}

// ---- Interaction -----------------------------------------------------------------

// Dragging moves the target in the plane through it that faces the camera.
function dragTo(event) {
    if (!camera || !state.ik) return;
    const box = canvas.getBoundingClientRect();
    const x = 2 * (event.clientX - box.left) / box.width - 1, y = 1 - 2 * (event.clientY - box.top) / box.height;
    const f = 1 / Math.tan(0.35), aspect = canvas.width / canvas.height;
    const ray = normalize(add(camera.forward, add(scale(camera.right, x * aspect / f), scale(camera.up, y / f))));
    const root = rootPosition(), t = add(root, state.offsets[state.model]);
    const distance = dot(sub(t, camera.eye), camera.forward) / dot(ray, camera.forward);
    state.offsets[state.model] = sub(add(camera.eye, scale(ray, distance)), root);
}

function bindControls() {
    const time = ui('time');
    // The slider spans the model shown, and the time moves into its range.
    const sync = () => {
        time.max = meshes[state.model].duration;
        state.time %= meshes[state.model].duration;
        time.value = state.time;
        showCenters();
    };
    ui('model').addEventListener('change', e => { state.model = Number(e.target.value); sync(); });
    document.querySelectorAll('input[name=method]').forEach(r => r.addEventListener('change', () => { state.method = checked('method'); }));
    document.querySelectorAll('input[name=device]').forEach(r => r.addEventListener('change', e => { state.cpu = e.target.value === 'cpu'; }));
    time.addEventListener('input', () => { state.time = Number(time.value); });
    ui('play').addEventListener('click', e => { state.playing = !state.playing; e.target.textContent = state.playing ? 'Pause' : 'Play'; });
    ui('ik').addEventListener('change', e => { state.ik = e.target.checked; });
    let dragging = false;
    canvas.addEventListener('pointerdown', e => { dragging = true; canvas.setPointerCapture(e.pointerId); dragTo(e); });
    canvas.addEventListener('pointermove', e => { if (dragging) dragTo(e); });
    canvas.addEventListener('pointerup', () => { dragging = false; });
    sync();
}

let last = performance.now(), average = 0;
function frame(now) {
    if (state.playing) {
        state.time = (state.time + (now - last) / 1000) % meshes[state.model].duration;
        ui('time').value = state.time;
    }
    last = now;
    const start = performance.now();
    draw();
    average = average ? 0.95 * average + 0.05 * (performance.now() - start) : performance.now() - start;
    ui('frame-time').textContent = `${average.toFixed(2)} ms to pose, skin and draw (${state.cpu ? 'CPU' : 'GPU'} skinning${gl ? '' : ', 2D canvas'})`;
    requestAnimationFrame(frame);
}

// ---- Self-test (?test=1) ------------------------------------------------------------

// The poses tests/web_dump.c prints natively: model, time, method, IK target.
const DUMP_CASES = [
    [0, 0.3, METHOD.DQS_SCALED, 1, [-0.35, 1.55, 0.35]],
    [0, 0.9, METHOD.LBS, 0, [0, 0, 0]],
    [1, 3.0, METHOD.DQS, 1, [-20.0, 20.0, 10.0]],
    [2, 5.0, METHOD.DQS, 0, [0, 0, 0]],
    [0, 0.6, METHOD.COR, 1, [-0.35, 1.55, 0.35]],
    [1, 2.0, METHOD.COR, 0, [0, 0, 0]],
];

// The canvas's pixels, RGBA, the top row first.
function pixels() {
    const w = canvas.width, h = canvas.height;
    if (!gl) return context2d.getImageData(0, 0, w, h).data;
    const data = new Uint8Array(4 * w * h), rows = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, data);
    for (let y = 0; y < h; ++y) rows.set(data.subarray(4 * w * (h - 1 - y), 4 * w * (h - y)), 4 * w * y);
    return rows;
}
const isBackground = (data, i) => BACKGROUND.every((c, k) => Math.abs(data[i + k] - Math.round(255 * c)) <= 8);

// FNV-1a over the pixels: two pictures that hash alike are taken as equal.
function hash(data) {
    let h = 0x811c9dc5;
    for (const byte of data) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
    return h.toString(16);
}

function skinnedAt(model, time) {
    wasm.web_select(model);
    wasm.web_pose(time, METHOD.LBS, 0, 0, 0, 0);
    wasm.web_skin(METHOD.LBS);
    return f32(wasm.web_skinned_positions(), 3 * wasm.web_vertex_count()).slice();
}

// The time slider spans the model shown: the walk's length in the module,
// after which the walk poses alike, or the clip's, as its file gives it; the
// thumb stands at the time shown.
function checkSlider(check, when) {
    const slider = ui('time'), shown = Number(ui('model').value), max = Number(slider.max), value = Number(slider.value);
    let length, loops = true, detail;
    if (shown === 1) {
        const [, frames, frameTime] = FK_WEB.bvh.match(/Frames:\s*(\d+)\s*Frame Time:\s*(\S+)/);
        length = (frames - 1) * frameTime;
        detail = `the file's ${frames} frames ${frameTime} s apart last ${length.toFixed(3)} s`;
    } else {
        wasm.web_select(0);
        length = wasm.web_duration();
        const a = skinnedAt(0, 0.3), b = skinnedAt(0, 0.3 + max);
        const apart = a.reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i])), 0);
        loops = apart <= 1e-5 * meshes[0].size;
        detail = `the walk lasts ${length} s; its vertices at 0.3 s and ${max} s later are ${apart.toPrecision(2)} apart`;
    }
    check(Math.abs(max - length) <= 1e-6 * length && loops && value <= max && Math.abs(value - state.time) <= Number(slider.step),
          `the time slider spans the ${ui('model').options[shown].text} ${when}`,
          `0 to ${max} s, the thumb at ${value} s, the time ${state.time.toFixed(4)} s; ${detail}`);
}

function selfTest(errors) {
    const results = [`MODE ${gl ? 'webgl2' : 'canvas2d'}`];
    const check = (ok, name, detail) => results.push(`${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);

    const dump = [];
    DUMP_CASES.forEach(([model, time, method, ik, t], c) => {
        wasm.web_select(model);
        let result = wasm.web_pose(time, method, ik, ...t);
        if (result === 0) result = wasm.web_skin(method);
        dump.push(`case ${c} ${result}`);
        const p = f32(wasm.web_skinned_positions(), 3 * wasm.web_vertex_count());
        for (let i = 0; i < p.length; i += 3)
            dump.push(`${p[i].toPrecision(9)} ${p[i + 1].toPrecision(9)} ${p[i + 2].toPrecision(9)}`);
    });
    ui('vertices').textContent = dump.join('\n');

    const notice = ui('notice'), noted = !notice.hidden && notice.offsetHeight > 0;
    if (gl) check(!noted, 'the page shows no note', notice.textContent);
    else check(noted && notice.textContent.includes('no WebGL2'), 'the page says it draws without WebGL2', notice.textContent);

    // The slider at start, then switched to the clip and back through the
    // select, from late in the clip, which is past the walk's end.
    const choose = model => { ui('model').value = model; ui('model').dispatchEvent(new Event('change')); };
    checkSlider(check, 'at start');
    choose(1);
    checkSlider(check, 'after switching to it');
    ui('time').value = 0.65 * Number(ui('time').max);
    ui('time').dispatchEvent(new Event('input'));
    choose(0);
    checkSlider(check, 'after switching back from 65% into the clip');

    // The character stands in the middle of the canvas: its middle third
    // across, most of the height, must differ from the background.
    Object.assign(state, { model: 0, method: METHOD.DQS, cpu: !gl, time: 0.3, ik: true });
    draw();
    const first = pixels(), w = canvas.width, h = canvas.height;
    let inside = 0, covered = 0;
    for (let y = Math.round(0.2 * h); y < Math.round(0.8 * h); ++y)
        for (let x = Math.round(w / 3); x < Math.round(2 * w / 3); ++x, ++inside)
            if (!isBackground(first, 4 * (y * w + x))) ++covered;
    check(covered > 0.08 * inside, 'the canvas shows the character', `${covered} of ${inside} pixels in its region differ from the background`);
    state.time = 0.9;
    draw();
    const second = pixels();
    check(hash(first) !== hash(second), 'scrubbing time changes the picture', `hashes ${hash(first)} at 0.3 s, ${hash(second)} at 0.9 s`);
    if (gl) {
        state.cpu = true;
        draw();
        const cpu = pixels();
        let far = 0;
        for (let i = 0; i < cpu.length; ++i) if (Math.abs(cpu[i] - second[i]) > 24) ++far;
        check(far < 0.002 * cpu.length, 'CPU and GPU skinning draw the same picture', `${far} channel values differ by more than 24`);
    }

    // Centres of rotation: the time the character's took shown, and the
    // character skinned with them drawn, differing from DQS's picture where
    // the two methods differ (the joints), alike on the CPU and the GPU.
    check(/^\d+\.\d ms to compute for \d+ vertices/.test(ui('cor-time').textContent), 'the page shows the time the centres took',
          ui('cor-time').textContent);
    Object.assign(state, { method: METHOD.COR, cpu: !gl, time: 0.9 });
    draw();
    const cor = pixels();
    let corCovered = 0, corChanged = 0;
    for (let y = Math.round(0.2 * h); y < Math.round(0.8 * h); ++y)
        for (let x = Math.round(w / 3); x < Math.round(2 * w / 3); ++x) if (!isBackground(cor, 4 * (y * w + x))) ++corCovered;
    for (let i = 0; i < cor.length; ++i) if (cor[i] !== second[i]) ++corChanged;
    check(corCovered > 0.08 * inside && corChanged > 0, 'the canvas shows the character skinned with centres of rotation',
          `${corCovered} of ${inside} pixels in its region differ from the background; ${corChanged} channel values from DQS's`);
    if (gl) {
        state.cpu = true;
        draw();
        const cpu = pixels();
        let far = 0;
        for (let i = 0; i < cpu.length; ++i) if (Math.abs(cpu[i] - cor[i]) > 24) ++far;
        check(far < 0.002 * cpu.length, 'CoR on the CPU and the GPU draw the same picture', `${far} channel values differ by more than 24`);
    }
    Object.assign(state, { method: METHOD.DQS, cpu: !gl });

    // Without the IK marker, what is drawn spans what the skinned vertices
    // project to, to within 2 pixels on every side.
    state.ik = false;
    draw();
    const last = pixels(), drawn = [w, h, -1, -1], projected = [w, h, -1, -1];
    for (let y = 0; y < h; ++y)
        for (let x = 0; x < w; ++x)
            if (!isBackground(last, 4 * (y * w + x))) drawn.splice(0, 4, Math.min(drawn[0], x), Math.min(drawn[1], y), Math.max(drawn[2], x), Math.max(drawn[3], y));
    wasm.web_skin(state.method);
    const p = f32(wasm.web_skinned_positions(), 3 * wasm.web_vertex_count());
    for (let i = 0; i < p.length; i += 3) {
        const [x, y] = project(camera.viewProjection, p[i], p[i + 1], p[i + 2]);
        projected.splice(0, 4, Math.min(projected[0], x), Math.min(projected[1], y), Math.max(projected[2], x), Math.max(projected[3], y));
    }
    // This picture for tests/web_test.sh, which holds the 2D canvas's to
    // WebGL2's: the mean colour of each block of 10 by 10 pixels.
    const blocks = [];
    for (let by = 0; by < h; by += 10)
        for (let bx = 0; bx < w; bx += 10) {
            const sum = [0, 0, 0];
            for (let y = by; y < by + 10; ++y)
                for (let x = bx; x < bx + 10; ++x) for (let k = 0; k < 3; ++k) sum[k] += last[4 * (y * w + x) + k];
            blocks.push(sum.map(v => (v / 100).toFixed(1)).join(' '));
        }
    ui('picture').textContent = blocks.join('\n');
    const box = b => `x ${b[0].toFixed(1)} to ${b[2].toFixed(1)}, y ${b[1].toFixed(1)} to ${b[3].toFixed(1)}`;
    check(drawn.every((d, k) => Math.abs(d - Math.floor(projected[k])) <= 2), 'the drawing spans the skinned vertices',
          `drawn ${box(drawn)}; the vertices ${box(projected)}`);

    for (const method of [METHOD.LBS, METHOD.DQS_SCALED, METHOD.COR]) {
        Object.assign(state, { method, cpu: !gl, model: 1 });
        draw();
    }
    if (gl) check(gl.getError() === gl.NO_ERROR, 'WebGL reports no error');
    check(errors.length === 0, 'no errors on the console', errors.join('; '));
    ui('results').textContent = results.join('\n');
}

// ---- Start ------------------------------------------------------------------------------

function note(text) {
    ui('notice').textContent = text;
    ui('notice').hidden = false;
}

function withoutWebGL2() {
    note('This browser gives the page no WebGL2, so the shaders cannot run: the WebAssembly module ' +
         'skins on the CPU, and the page draws the mesh on a 2D canvas itself.');
    document.querySelector('input[name=device][value=gpu]').disabled = true;
    document.querySelector('input[name=device][value=cpu]').checked = true;
    state.cpu = true;
}

async function main() {
    const errors = [];
    const consoleError = console.error.bind(console);
    console.error = (...args) => { errors.push(args.join(' ')); consoleError(...args); };
    window.addEventListener('error', e => errors.push(e.message));
    try {
        if (!gl && !context2d) throw new Error('this browser gives the page neither WebGL2 nor a 2D canvas');
        if (typeof WebAssembly !== 'object') throw new Error('this browser has no WebAssembly');
        await loadModule();
        if (gl) makePrograms();
        else withoutWebGL2();
        meshes = [makeMesh(0), makeMesh(1), makeMesh(2)];
        bindControls();
        const centers = loadCenters();
        if (testing) {
            await centers;
            selfTest(errors);
        } else {
            requestAnimationFrame(frame);
            await centers;
        }
    } catch (error) {
        note(`The page cannot run: ${error.message || error}.`);
        console.error(error.stack || String(error));
        if (testing) ui('results').textContent = `FAIL the page starts: ${error}`;
    }
}
main();
