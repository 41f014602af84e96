// The model edits a Windows-style (CRLF) config: a two-line edit as read shows the lines, then a
// read → modify → write of the whole file; the line endings must stay CRLF.
await tools.bash({ description: "Make a CRLF config file", command: "printf 'name=shop\\r\\nport=80\\r\\nmode=dev\\r\\n' > app.ini" });
await tools.edit({ file_path: "app.ini", old_string: "port=80\nmode=dev", new_string: "port=8080\nmode=prod" });
const r = await tools.read({ file_path: "app.ini" });
const content = r.lines.map((l) => l.text.toUpperCase()).join("\n") + "\n";
await tools.write({ file_path: "app.ini", content });
const check = await tools.bash({ description: "Count CR characters", command: "tr -cd '\\r' < app.ini | wc -c; tr -d '\\r' < app.ini" });
return check.stdout;
