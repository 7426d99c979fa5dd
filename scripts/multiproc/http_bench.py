# Multi-process measurement over HTTP (issue 24): a stdio owner A on a vault
# with the embedded store, serve --http H beside it (relaying to A), and
# serve --http D owning a store of its own on the same vault (another state
# folder): get_node p50 through H and through D, in alternating rounds; then
# A is SIGKILLed and H's first answer after it is timed (H takes the store
# over: lock, open, warm sync).
#   python3 scripts/multiproc/http_bench.py BIN VAULT WORKDIR NOTE_ID
import http.client, json, os, signal, subprocess, sys, time

B, VAULT, W, NOTE = sys.argv[1:5]
os.makedirs(W, exist_ok=True)
env = dict(os.environ, VAULTGRAPH_LOG_FORMAT='json', VAULTGRAPH_EMBEDDING_PROVIDER='none',
           XDG_CONFIG_HOME=os.path.join(W, 'cfg'), VAULTGRAPH_HTTP_TOKENS='tok')


def start(name, state, *extra):
    return subprocess.Popen([B, 'serve', '--vault', VAULT, '--store', 'embedded', '--state-dir', state, *extra],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(W, name + '.err'), 'w'), env=env)


def waitlog(name, msg, timeout=600):
    end = time.time() + timeout
    while time.time() < end:
        for line in open(os.path.join(W, name + '.err')):
            try:
                f = json.loads(line)
            except ValueError:
                continue
            if f.get('msg') == msg:
                return f
        time.sleep(0.05)
    raise SystemExit('%s: no %r' % (name, msg))


class Client:
    """A 2025-11-25 session on one keep-alive connection."""

    def __init__(self, addr):
        host, port = addr.rsplit(':', 1)
        self.c = http.client.HTTPConnection(host, int(port), timeout=120)
        self.session, self.id = None, 0
        self.rpc('initialize', {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def post(self, msg):
        h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream', 'Authorization': 'Bearer tok'}
        if self.session:
            h['Mcp-Session-Id'] = self.session
        self.c.request('POST', '/mcp', json.dumps(msg), h)
        r = self.c.getresponse()
        body = r.read().decode()
        if r.getheader('Mcp-Session-Id'):
            self.session = r.getheader('Mcp-Session-Id')
        if r.status >= 300:
            raise RuntimeError('%d %s' % (r.status, body[:300]))
        if r.getheader('Content-Type', '').startswith('text/event-stream'):
            body = [l[5:] for l in body.splitlines() if l.startswith('data:')][-1]
        return json.loads(body) if body.strip() else None

    def rpc(self, method, params):
        self.id += 1
        return self.post({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})

    def get_node(self, nid):
        r = self.rpc('tools/call', {"name": "get_node", "arguments": {"id": nid}})
        if 'error' in r or r['result'].get('isError') or r['result']['content'][0]['text'] == 'null':
            raise RuntimeError(json.dumps(r)[:300])


def p50(c, n=300):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        c.get_node(NOTE)
        out.append(time.perf_counter() - t)
    out.sort()
    return out[n // 2] * 1000, out[n * 9 // 10] * 1000


a = start('a', os.path.join(W, 'state'))
waitlog('a', 'vault: sync done')
h = start('h', os.path.join(W, 'state'), '--http', '127.0.0.1:0')
d = start('d', os.path.join(W, 'state-d'), '--http', '127.0.0.1:0')
hc = Client(waitlog('h', 'serving MCP over HTTP')['addr'])
waitlog('d', 'vault: sync done')
dc = Client(waitlog('d', 'serving MCP over HTTP')['addr'])
print('load before:', open('/proc/loadavg').read().split()[:3])
for c in (hc, dc):
    p50(c, 100)  # warm up
for rnd in range(5):
    hr = p50(hc)
    dr = p50(dc)
    print('round %d: get_node p50/p90 relayed H %.3f/%.3f ms, owning D %.3f/%.3f ms' % (rnd + 1, *hr, *dr))
print('load after:', open('/proc/loadavg').read().split()[:3])
a.send_signal(signal.SIGKILL)
t = time.perf_counter()
a.wait()
while True:
    try:
        hc.get_node(NOTE)
        break
    except RuntimeError as e:
        if 'stopped before answering' not in str(e) and 'first sync' not in str(e):
            raise
print("H's first get_node after A's SIGKILL answered in %.0f ms (same session)" % ((time.perf_counter() - t) * 1000))
for p in (h, d):
    p.send_signal(signal.SIGTERM)
    p.wait()
