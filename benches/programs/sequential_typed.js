let slept = 0
for (let i = 0; i < 1000; i++) slept += (await tools.sleep({ ms: 0 })).slept
return slept
