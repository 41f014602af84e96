// The model checks which CSV files are UTF-8 by decoding their bytes with { fatal: true } (the
// eleventh fresh pass found `fatal` ignored: every file passed, the cp1252 one too).
await tools.bash({
  command: "printf 'name\\nJos\\xe9\\n' > legacy.csv && printf 'name\\nJos\\xc3\\xa9\\n' > modern.csv",
  description: "Make two CSV files",
});
const verdicts: Record<string, string> = {};
for (const file of ["legacy.csv", "modern.csv"]) {
  const { stdout } = await tools.bash({ command: `base64 -w0 ${file}`, description: "Read the bytes" });
  const bytes = Uint8Array.from(atob(stdout.trim()), (c) => c.charCodeAt(0));
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    verdicts[file] = `utf-8: ${text.split("\n")[1]}`;
  } catch (e) {
    verdicts[file] = `not utf-8 (${(e as Error).message})`;
  }
}
return verdicts;
