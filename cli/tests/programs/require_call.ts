const path = require("path");
const { paths } = await tools.glob({ pattern: "src/**/*.ts" });
return paths.map((p: string) => path.basename(p));
