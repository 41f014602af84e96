export default async () => {
  const hits = await tools.grep({ pattern: "from \"\\./util/format\"", path: "src" });
  return hits.matches.map((h) => h.path);
};
