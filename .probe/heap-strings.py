import json, sys, collections, re
snap = json.load(open(sys.argv[1]))
meta = snap['snapshot']['meta']; fields = meta['node_fields']; nf = len(fields); types = meta['node_types'][0]
nodes = snap['nodes']; strings = snap['strings']
ti, ni, si = fields.index('type'), fields.index('name'), fields.index('self_size')
cat = collections.Counter(); cnt = collections.Counter(); ex = {}
for i in range(0, len(nodes), nf):
    t = types[nodes[i+ti]]
    if t not in ('string',): continue
    s = strings[nodes[i+ni]]; sz = nodes[i+si]
    if re.fullmatch(r'[0-9a-f]{64}', s): k = 'hex64'
    elif s.startswith('/'): k = 'abs path'
    elif re.fullmatch(r'[0-9a-f-]{36}', s): k = 'uuid'
    elif ':' in s[:20] and '/' in s: k = 'prefixed path/id'
    elif len(s) > 1000: k = 'long >1000'
    elif len(s) > 100: k = 'mid 100-1000'
    else: k = 'short'
    cat[k] += sz; cnt[k] += 1; ex.setdefault(k, s[:100])
for k, v in cat.most_common(): print(f'{v/1048576:7.2f} MiB {cnt[k]:8d} {k}: {ex[k]!r}')
