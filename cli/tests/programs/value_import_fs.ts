import { readFileSync } from "fs";

const text = readFileSync("package.json", "utf8");
return JSON.parse(text).name;
