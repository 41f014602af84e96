Promise.reject(new Error("background failure"));
return "done";
