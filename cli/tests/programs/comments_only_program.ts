// TODO: figure out what to do here
/* nothing yet */
