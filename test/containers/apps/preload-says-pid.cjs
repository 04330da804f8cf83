// A NODE_OPTIONS preload meant for the app: it says which process it ran in.
console.log(`preload ran in pid ${process.pid}`);
