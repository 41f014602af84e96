const urls = [
  "http://127.0.0.1:3000/health",
  "http://[::1]:8080/",
  "http://10.0.0.5/internal",
  "file:///etc/hosts",
  "ftp://example.com/file.txt",
  "localhost:3000",
  "docs.rs/serde",
];
const settled = await Promise.allSettled(urls.map((url) => tools.web_fetch({ url })));
return settled.map((s, i) =>
  s.status === "fulfilled" ? `${urls[i]}: ${s.value.status}` : `${urls[i]}: ${s.reason.message}`,
);
