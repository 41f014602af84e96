// The model lists a folder's files with a folder pattern and searches TypeScript files with a
// bare extension as the include (both matched nothing, unsaid, in the eleventh fresh pass).
const files = await tools.glob({ pattern: "src/" });
const exports = await tools.grep({ pattern: "^export ", include: ".ts" });
return { files: files.total, exports: exports.total };
