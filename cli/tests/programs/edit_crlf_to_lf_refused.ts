// The model tries to convert a Windows-style (CRLF) file to LF line endings with edit.
await tools.bash({ description: "Make a CRLF file", command: "printf 'a=1\\r\\nb=2\\r\\n' > win.ini" });
const r = await tools.edit({ file_path: "win.ini", old_string: "\r\n", new_string: "\n", replace_all: true });
return `converted: ${r.replacements} line endings`;
