// The model checks whether it runs under Node before reading an environment variable.
if (typeof process === "object" && process.env) {
  return `HOME is ${process.env.HOME}`;
}
return "not Node";
