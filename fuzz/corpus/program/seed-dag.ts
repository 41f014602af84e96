let a = [0];
for (let i = 0; i < 30; i++) a = [a, a];
return a