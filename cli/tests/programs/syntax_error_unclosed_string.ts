const r = await tools.grep({ pattern: "TODO });
return r.total;
