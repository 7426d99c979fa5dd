# Multi-process measurement (issue 24): owner A and relay B over stdio on one
# 10k vault with the embedded store; a `call` process; write visibility and
# read latency while another process writes.
import subprocess, json, time, os, threading, statistics, sys
B='/tmp/h12bin/vaultgraph'
env=dict(os.environ, VAULTGRAPH_LOG_FORMAT='json', VAULTGRAPH_EMBEDDING_PROVIDER='none', XDG_CONFIG_HOME='/tmp/h12m/cfg')
base=['--vault','/tmp/h12m/vault','--store','embedded','--state-dir','/tmp/h12m/state']
class P:
    def __init__(s,name):
        s.p=subprocess.Popen([B,'serve']+base, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open('/tmp/h12m/'+name+'.err','w'), env=env, text=True, bufsize=1)
        s.id=0; s.lock=threading.Lock()
    def rpc(s, method, params):
        with s.lock:
            s.id+=1; i=s.id
            s.p.stdin.write(json.dumps({"jsonrpc":"2.0","id":i,"method":method,"params":params})+"\n"); s.p.stdin.flush()
            while True:
                m=json.loads(s.p.stdout.readline())
                if m.get('id')==i: return m
    def init(s):
        t=time.perf_counter(); s.rpc('initialize',{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}); d=time.perf_counter()-t
        s.p.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'); s.p.stdin.flush(); return d
    def call(s,name,args): return s.rpc('tools/call',{"name":name,"arguments":args})
def waitlog(f,msg,timeout=300):
    end=time.time()+timeout
    while time.time()<end:
        for l in open(f):
            if '"msg":"%s"'%msg in l: return json.loads(l)
        time.sleep(0.05)
    raise SystemExit('no '+msg)
hub=sys.argv[1].lower()
a=P('a'); print('A initialize (cold 10k vault) %.1f ms' % (a.init()*1000))
waitlog('/tmp/h12m/a.err','vault: sync done')
b=P('b'); print('B initialize (relay) %.1f ms' % (b.init()*1000))
def lat(p, n=300, args={"id":hub}):
    out=[]
    for _ in range(n):
        t=time.perf_counter(); r=p.call('get_node',args); out.append(time.perf_counter()-t)
        assert 'error' not in r, r
    out.sort(); return out[len(out)//2]*1000, out[int(len(out)*.9)]*1000
print('get_node %s depth 0 through the owner A: p50 %.3f ms p90 %.3f ms' % ((hub,)+lat(a)))
print('get_node depth 0 through the relay B:  p50 %.3f ms p90 %.3f ms' % lat(b))
# write visibility: write through B, poll A
vis=[]
for i in range(50):
    r=b.call('create_node',{"title":"Vis %d"%i,"content":"x"}); assert 'error' not in r
    nid=json.loads(r['result']['content'][0]['text'])['id']
    t=time.perf_counter()
    while True:
        r=a.call('get_node',{"id":nid})
        if not r['result'].get('isError') and r['result']['content'][0]['text'] != 'null': break
    vis.append(time.perf_counter()-t)
vis.sort(); print('write through B visible through A: p50 %.3f ms max %.3f ms (n=50, from B\'s answer to A\'s first successful read)' % (vis[25]*1000, vis[-1]*1000))
# reads through B while A writes continuously
stop=False; writes=[0]
def writer():
    i=0
    while not stop:
        a.call('create_node',{"title":"Busy %d"%i,"content":"[[Vis 1]]"}); i+=1; writes[0]=i
th=threading.Thread(target=writer); th.start()
r50,r90=lat(b,400)
stop=True; th.join()
print('get_node through B while A writes (%d writes meanwhile): p50 %.3f ms p90 %.3f ms' % (writes[0], r50, r90))
t=time.perf_counter(); out=subprocess.run([B,'call','get_node',json.dumps({"id":hub})]+base, capture_output=True, env=env, text=True); d=time.perf_counter()-t
print('vaultgraph call get_node while A owns the store: %.0f ms wall, exit %d, synced itself: %s' % (d*1000, out.returncode, 'sync done' in out.stderr))
a.p.stdin.close(); a.p.wait()
t=time.perf_counter(); r=b.call('get_node',{"id":hub}); print('first call through B after A exited (B takes over): %.0f ms, ok=%s' % ((time.perf_counter()-t)*1000, 'result' in r))
b.p.stdin.close(); b.p.wait()
