return { counts: new Map([["a", 1]]), tags: new Set(["x"]) };
