"""Writes pandas_legacy.json: latency strings and the float pandas legacy parser reads.

Run from this directory with Debian python3-pandas; tests read only the JSON.
"""
import pandas, io, random, json
random.seed(7)
vals=[l.split(',')[2].strip() for l in open('../../../testdata/fastrtps-v192/measurements_interprocess_reliable.csv').read().splitlines()[1:]]
vals=sorted(set(vals))
extra=[]
for _ in range(20000):
    ip=str(random.randint(0,10**random.randint(0,7)))
    dp=''.join(random.choice('0123456789') for _ in range(random.randint(0,9)))
    extra.append(ip+('.'+dp if dp else ''))
extra += ['1e3','1.5E-2','123456789.123','1234567890123.5','0.000001','99999999999999999.5','3.','.5','12345.6789012345678']
allv=vals+extra
df=pandas.read_csv(io.StringIO('x\n'+'\n'.join(allv)+'\n'), float_precision='legacy', dtype={'x':float})
json.dump([[s, float(v).hex()] for s,v in zip(allv, df['x'])], open('./pandas_legacy.json','w'))
print(len(allv))
