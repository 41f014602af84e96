class Collector {
  constructor(private readonly pattern: string) {}
  async run() {
    return (await tools.grep({ pattern: this.pattern })).total;
  }
}
return await new Collector("TODO").run();
