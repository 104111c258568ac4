# python3 smaps-peak.py PID [interval]: samples /proc/PID/smaps; at each new VmRSS peak prints RSS by kind.
import sys, time, re, collections
pid = sys.argv[1]; interval = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
best = 0; t0 = time.time()
def sample():
    kinds = collections.Counter(); maps = []
    cur = None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', line):
                parts = line.split()
                a, b = (int(x, 16) for x in parts[0].split('-'))
                cur = {'size': b - a, 'perm': parts[1], 'path': parts[5] if len(parts) > 5 else '', 'rss': 0, 'start': a}
                maps.append(cur)
            elif line.startswith('Rss:'):
                cur['rss'] = int(line.split()[1]) * 1024
    # arenas: anon rw mapping followed by anon --- mapping whose sizes sum to 64 MiB, or aligned to 64 MiB
    for i, m in enumerate(maps):
        if m['rss'] == 0: continue
        p = m['path']
        if p == '[heap]': k = 'main arena [heap]'
        elif p.startswith('/') and 'node' in p.split('/')[-1] and p.endswith('node'): k = 'node binary'
        elif p.endswith('.node'): k = 'addons'
        elif p.startswith('/'): k = 'files: ' + p.split('/')[-1][:30] if ('history.db' in p or '.db' in p) else 'other files'
        elif p.startswith('['): k = p
        else:
            nxt = maps[i + 1] if i + 1 < len(maps) else None
            if m['start'] % (64 << 20) == 0 and (m['size'] == (64 << 20) or (nxt and nxt['perm'].startswith('---') and m['size'] + nxt['size'] == (64 << 20))):
                k = 'thread arenas'
            elif m['size'] <= (256 << 10) and m['perm'].startswith('rw'): k = 'anon <=256K (V8 pages)'
            elif m['perm'].startswith('rw'): k = 'anon rw >256K (V8 large/semi, mmapped blocks)'
            else: k = 'anon other'
        kinds[k] += m['rss']
    return kinds
try:
    while True:
        st = open(f'/proc/{pid}/status').read()
        rss = int(re.search(r'VmRSS:\s+(\d+)', st).group(1)) * 1024
        if rss > best:
            best = rss
            k = sample()
            print(f't={time.time()-t0:6.1f}s VmRSS {rss/1048576:6.1f} MiB  ' + ', '.join(f'{n} {v/1048576:.1f}' for n, v in k.most_common()), flush=True)
        time.sleep(interval)
except FileNotFoundError:
    pass
except ProcessLookupError:
    pass
