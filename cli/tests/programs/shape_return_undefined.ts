// Write a file and return nothing.
await tools.write({ file_path: "src/version.ts", content: 'export const VERSION = "0.4.2";\n' });
return undefined;
