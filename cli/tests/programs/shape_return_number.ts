const r = await tools.grep({ pattern: "TODO|FIXME" });
return r.total;
