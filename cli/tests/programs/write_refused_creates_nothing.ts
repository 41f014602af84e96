// The model writes an object as text into a new file in a new folder, then checks what is there.
const methods = { get: "GET", post: "POST" };
try {
  await tools.write({ file_path: "api/methods.txt", content: `${methods}` });
} catch (e) {
  console.log(String(e.message ?? e).split(";")[0]);
}
const found = await tools.glob({ pattern: "api/**" });
return { files: found.paths };
