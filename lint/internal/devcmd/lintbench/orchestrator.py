# The Python side of lintbench's orchestrator benchmark (orchestrator.go):
# an orchestrator that validates operator/assignment packets with agentlint,
# three ways, standard library only. It prints one JSON object per way on
# standard output; orchestrator.go prints the table and the ratios.
#
#   python3 orchestrator.py AGENTLINT PACKET PROCS STREAM SERVE CLIENTS
import http.client, json, os, socket, subprocess, sys, tempfile, threading, time

agentlint, packet_path = sys.argv[1], sys.argv[2]
procs, stream_n, serve_n, clients = (int(a) for a in sys.argv[3:7])
with open(packet_path, "rb") as f:
    packet = f.read()
line = json.dumps(json.loads(packet), separators=(",", ":")) + "\n"
KIND = "operator/assignment"


def pct(lat, p):
    lat = sorted(lat)
    return lat[min(len(lat) - 1, int(len(lat) * p))] if lat else 0.0


def report(way, n, wall, lat, errors, note=""):
    print(json.dumps({"way": way, "n": n, "seconds": wall, "per_s": n / wall if wall else 0,
                      "p50_ms": pct(lat, 0.50) * 1e3, "p99_ms": pct(lat, 0.99) * 1e3,
                      "errors": errors, "note": note}), flush=True)


# (a) One process per packet: what an orchestrator does without agentlint's
# co-process or server.
lat, errors = [], 0
start = time.perf_counter()
for _ in range(procs):
    t = time.perf_counter()
    r = subprocess.run([agentlint, "validate", "--format", "json", "--kind", KIND, "-"],
                       input=packet, stdout=subprocess.PIPE)
    lat.append(time.perf_counter() - t)
    if r.returncode != 0 or not json.loads(r.stdout)["allow"]:
        errors += 1
report("process", procs, time.perf_counter() - start, lat, errors)

# (b) The co-process, in lockstep: write a line, flush, read its envelope.
co = subprocess.Popen([agentlint, "validate", "--stream", "--kind", KIND],
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lat, errors = [], 0
start = time.perf_counter()
for _ in range(stream_n):
    t = time.perf_counter()
    co.stdin.write(line.encode())
    co.stdin.flush()
    out = co.stdout.readline()
    lat.append(time.perf_counter() - t)
    if not out.startswith(b'{"allow":true'):
        errors += 1
wall = time.perf_counter() - start
co.stdin.close()
co.stdout.readline()  # the summary
co.wait()
report("stream", stream_n, wall, lat, errors, "lockstep: write a line, read a line")

# (b') The same co-process pipelined: one thread writes every line, the main
# thread reads every envelope (throughput one way through; no latency).
co = subprocess.Popen([agentlint, "validate", "--stream", "--kind", KIND],
                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
data = line.encode() * stream_n


def feed():
    co.stdin.write(data)
    co.stdin.close()


start = time.perf_counter()
w = threading.Thread(target=feed)
w.start()
errors = 0
for _ in range(stream_n):
    if not co.stdout.readline().startswith(b'{"allow":true'):
        errors += 1
wall = time.perf_counter() - start
w.join()
co.stdout.readline()
co.wait()
report("stream-pipelined", stream_n, wall, [], errors, "one thread writes all lines, one reads")


# (c) agentlint serve on a Unix socket, CLIENTS threads with a kept-alive
# http.client connection each.
class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


sock = os.path.join(tempfile.mkdtemp(), "agentlint.sock")
server = subprocess.Popen([agentlint, "serve", "--listen", "unix:" + sock, "--max-in-flight", str(2 * clients)],
                          stderr=subprocess.DEVNULL)
for _ in range(500):
    try:
        c = UnixHTTPConnection(sock)
        c.request("GET", "/healthz")
        if c.getresponse().status == 200:
            break
    except OSError:
        time.sleep(0.02)
path = "/v1/validate?kind=" + KIND
per = serve_n // clients
lats, errs = [[] for _ in range(clients)], [0] * clients
go = threading.Barrier(clients + 1)


def client(i):
    conn = UnixHTTPConnection(sock)
    go.wait()
    for _ in range(per):
        t = time.perf_counter()
        try:
            conn.request("POST", path, body=packet)
            resp = conn.getresponse()
            body = resp.read()
            ok = resp.status == 200 and body.startswith(b'{"allow":true')
        except OSError:
            ok = False
            conn.close()
            conn = UnixHTTPConnection(sock)
        errs[i] += not ok
        lats[i].append(time.perf_counter() - t)
    conn.close()


ts = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
for t in ts:
    t.start()
go.wait()
start = time.perf_counter()
for t in ts:
    t.join()
wall = time.perf_counter() - start
server.terminate()
server.wait()
report("serve-python", per * clients, wall, [x for l in lats for x in l], sum(errs),
       "%d Python threads, http.client over AF_UNIX, kept-alive" % clients)
