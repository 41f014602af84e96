try {
  await tools.read({ file_path: "nope.txt" });
} catch (e) {
  return { ok: false, error: e };
}
