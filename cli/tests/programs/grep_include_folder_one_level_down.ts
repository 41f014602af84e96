// The model counts the assert statements of a package's tests with an include glob naming the
// specs folder, which lies one level down (the thirteenth fresh pass got 0, with a note
// blaming `\s` instead).
await tools.bash({
  command: "mkdir -p flask/specs && printf 'def test_a():\\n    assert 1\\n    assert 2\\n' > flask/specs/test_app.py",
  description: "Make a test file",
});
const r = await tools.grep({ pattern: "^\\s*assert\\b", include: "specs/**/*.py" });
return { asserts: r.total };
