export default function (relay) {}
