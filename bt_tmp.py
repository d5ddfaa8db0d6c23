import time, numpy as np
import minijax.scipy.special as ms
from minijax.scipy import _bessel as b
x = np.linspace(0.1, 50, 1000)
t=time.time(); b._jy01_compiled(x); print("jy01 compile", time.time()-t)
t=time.time(); ms.jn(10, x); print("jn10", time.time()-t)
t=time.time(); ms.jn(30, x); print("jn30", time.time()-t)
t=time.time(); ms.yn(30, x); print("yn30", time.time()-t)
t=time.time(); ms.iv(1.5, x); print("iv", time.time()-t)
