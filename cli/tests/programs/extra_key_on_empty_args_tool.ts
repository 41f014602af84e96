const list = await tools.task_list({ all: true });
return list.tasks;
