// The model forgets `await` on a slow command that edits a file, then returns at once.
tools.bash({ command: "sleep 2 && sed -i 's/# Changelog/# Changelog (draft)/' CHANGELOG.md", description: "Mark the changelog as a draft" });
return "edited";
