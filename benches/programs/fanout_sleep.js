const results = await Promise.all(Array.from({ length: 100 }, () => tools.sleep({ ms: 10 })))
return results.length
