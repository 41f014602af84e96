let sum = 0
for (let i = 0; i < 1000; i++) sum = await tools.add({ a: sum, b: 1 })
return sum
