// The web page as a visitor opens it (no self-test): its centres of rotation
// come from a worker, which headless Chromium's virtual time does not wait
// for, so this drives Chromium through its DevTools protocol in real time and
// polls the page until the centres' time is shown and the CoR choice is
// offered. Prints one line, "PASS ..." or "FAIL ...", or "SKIP ..." when node
// has no WebSocket (node 20 needs --experimental-websocket; tests/web_test.sh
// passes it).
//   node --experimental-websocket tests/web_worker.mjs CHROMIUM PAGE_URL PROFILE_DIR
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

const [chromium, url, profile] = process.argv.slice(2);
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
if (typeof WebSocket !== 'function') {
    console.log('SKIP the worker: this node has no WebSocket to talk to Chromium');
    process.exit(0);
}
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader', '--remote-debugging-port=0', 'about:blank'], { stdio: 'ignore' });
let result = 'FAIL the worker: Chromium did not start';
try {
    let port = null;
    for (let i = 0; i < 100 && !port; ++i) { // Chromium writes the port it chose here
        try { port = (await readFile(`${profile}/DevToolsActivePort`, 'utf8')).split('\n')[0]; } catch { await sleep(200); }
    }
    const page = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()).find(t => t.type === 'page');
    const socket = new WebSocket(page.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
    const waiting = new Map();
    let id = 0;
    socket.onmessage = ({ data }) => {
        const message = JSON.parse(data);
        if (waiting.has(message.id)) { waiting.get(message.id)(message.result); waiting.delete(message.id); }
    };
    const send = (method, params = {}) => new Promise(resolve => {
        waiting.set(++id, resolve);
        socket.send(JSON.stringify({ id, method, params }));
    });
    await send('Page.navigate', { url });
    const start = Date.now();
    let shown = '';
    while (Date.now() - start < 90000) {
        const { result: value } = await send('Runtime.evaluate', { returnByValue: true, expression: `(() => {
            const time = document.getElementById('cor-time');
            const choice = document.querySelector('input[name=method][value="3"]'); // METHOD.COR
            return time && choice ? { text: time.textContent, offered: !choice.disabled } : null; })()` });
        const state = value && value.value;
        shown = state ? state.text : '';
        if (state && /^\d+\.\d ms to compute for \d+ vertices/.test(state.text) && state.offered) {
            result = `PASS the worker computed the centres and the page offers CoR: "${state.text}", ` +
                     `${((Date.now() - start) / 1000).toFixed(1)} s after loading`;
            break;
        }
        await sleep(250);
    }
    if (!result.startsWith('PASS')) result = `FAIL the worker: after 90 s the page shows "${shown}"`;
    socket.close();
} catch (error) {
    result = `FAIL the worker: ${error.message || error}`;
}
browser.kill();
console.log(result);
