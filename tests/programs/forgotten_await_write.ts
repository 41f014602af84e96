// The model forgets `await` on a write that succeeds, then returns straight away.
tools.write({ file_path: "NOTES.md", content: "remember to bump the version\n" });
return "saved NOTES.md";
