const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const order: string[] = [];
await Promise.all([
  delay(800).then(() => order.push("timer 800")),
  tools.sleep({ ms: 50 }).then(() => order.push("tool sleep 50")),
  delay(1).then(() => order.push("timer 1")),
]);
let ticks = 0;
const iv = setInterval(() => ticks++, 10);
await delay(200);
clearInterval(iv);
return { order, ticked: ticks >= 1 };
