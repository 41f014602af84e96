const results = await Promise.allSettled([tools.read({ file_path: "nope.txt" }), tools.add({a:1,b:2})]);
return results;
