// Record<string, never> tools called with no argument at all.
const n = await tools.counter();
const tasks = await tools.task_list();
return { counterIsNumber: typeof n === "number", tasks: tasks.tasks.length };
