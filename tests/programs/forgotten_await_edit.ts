tools.edit({ file_path: "CHANGELOG.md", old_string: "# Changelog\n", new_string: "# Changelog\n\n## 0.5.0\n- Unreleased\n" });
return "edited";
