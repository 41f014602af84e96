// The model forgets `await` on a command that writes a file, then returns straight away.
tools.bash({ command: "sleep 2 && echo 'remember to bump the version' > NOTES.md", description: "Write a note for later" });
return "saved NOTES.md";
