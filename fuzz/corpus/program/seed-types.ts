const x: Array<number> = [1];
if (x) /[(]/.test("(");
return x as unknown