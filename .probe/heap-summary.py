import json, sys, collections
path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
snap = json.load(open(path))
meta = snap['snapshot']['meta']
fields = meta['node_fields']; nf = len(fields)
types = meta['node_types'][0]
nodes = snap['nodes']; strings = snap['strings']
ti, ni, si = fields.index('type'), fields.index('name'), fields.index('self_size')
agg = collections.Counter(); cnt = collections.Counter(); total = 0
for i in range(0, len(nodes), nf):
    t = types[nodes[i+ti]]; s = nodes[i+si]; total += s
    name = strings[nodes[i+ni]] if t in ('object', 'closure', 'native', 'hidden', 'object shape', 'synthetic') else ''
    if t == 'string' or t == 'concatenated string' or t == 'sliced string': name = ''
    key = f'{t}:{name[:60]}'
    agg[key] += s; cnt[key] += 1
print(f'{path}: total self {total/1048576:.1f} MiB, {len(nodes)//nf} nodes')
for k, v in agg.most_common(top):
    print(f'{v/1048576:8.2f} MiB {cnt[k]:9d}  {k}')
