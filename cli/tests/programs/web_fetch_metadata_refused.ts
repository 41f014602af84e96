// Check whether we run on a cloud VM by asking the instance metadata service.
const res = await tools.web_fetch({ url: "http://169.254.169.254/latest/meta-data/instance-id" });
return { cloud: true, instance: res.text.trim() };
